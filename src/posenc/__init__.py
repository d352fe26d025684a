"""posenc -- positional encodings and attention in plain numpy, for teaching.

Three ways to tell a transformer *where* a token is:

* ``sinusoidal`` -- fixed sin/cos waves added to the embeddings (Vaswani et al. 2017);
* ``LearnedEmbedding`` -- a trainable table, one row per position (GPT-2, BERT);
* ``rope`` -- rotate queries and keys by position (RoFormer, LLaMA, GPT-NeoX).

and the attention they feed: ``attention``, ``attention_weights``,
``self_attention``, ``causal_mask``. Figures live in ``posenc.plot``
(matplotlib is imported only when a plot function runs).

Only numpy (>= 2.0) is needed; the same code runs in CPython and in Pyodide.

Examples
--------
>>> import numpy as np
>>> import posenc
>>> x = posenc.sinusoidal(10, 16)           # (positions, d_model)
>>> q = posenc.rope(np.ones((10, 16)))       # rotate by position
>>> out = posenc.attention(q, q, x, mask=posenc.causal_mask(10))
>>> out.shape
(10, 16)
"""

from posenc import plot
from posenc._attention import attention, attention_weights, causal_mask, self_attention
from posenc._learned import LearnedEmbedding
from posenc._rope import PAIRINGS, rope
from posenc._sinusoidal import frequencies, sinusoidal

__version__ = "0.1.0"

__all__ = [
    "PAIRINGS",
    "LearnedEmbedding",
    "__version__",
    "attention",
    "attention_weights",
    "causal_mask",
    "frequencies",
    "plot",
    "rope",
    "self_attention",
    "sinusoidal",
]
