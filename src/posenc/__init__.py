"""posenc -- positional encodings and attention in plain numpy, for teaching.

Three ways to tell a transformer *where* a token is:

* ``sinusoidal`` -- fixed sin/cos waves added to the embeddings (Vaswani et al. 2017);
* ``LearnedEmbedding`` -- a trainable table, one row per position (GPT-2, BERT);
* ``rope`` -- rotate queries and keys by position (RoFormer, LLaMA, GPT-NeoX),
  with ``rope_frequencies`` for its long-context rescalings (PI, NTK, YaRN, llama3);
* ``alibi_slopes``/``alibi_bias`` -- no position vectors, a distance penalty on
  the scores (ALiBi, BLOOM);
* relative positions, each as its reference computes it: ``t5_relative_bucket``
  (T5's buckets, float32 rounding included), ``shaw_relative_indices`` (Shaw et
  al.'s clipped offsets), ``kerple_log_bias``/``kerple_power_bias`` (KERPLE's
  kernels) and ``fire_distance`` (FIRE's normalised distance).

and the attention they feed: ``attention``, ``attention_weights``,
``self_attention``, ``causal_mask``. Figures live in ``posenc.plot``
(matplotlib is imported only when a plot function runs); ``posenc.experiment``
trains a one-layer causal attention model on synthetic tasks with each scheme
and measures its accuracy on longer inputs.

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

from posenc import experiment, plot
from posenc._alibi import alibi_bias, alibi_slopes
from posenc._attention import attention, attention_weights, causal_mask, self_attention
from posenc._learned import LearnedEmbedding
from posenc._relative import (
    fire_distance,
    kerple_log_bias,
    kerple_power_bias,
    shaw_relative_indices,
    t5_relative_bucket,
)
from posenc._rope import PAIRINGS, rope
from posenc._rope_scaling import ROPE_TYPES, rope_frequencies
from posenc._sinusoidal import frequencies, sinusoidal

__version__ = "0.1.0"

__all__ = [
    "PAIRINGS",
    "ROPE_TYPES",
    "LearnedEmbedding",
    "__version__",
    "alibi_bias",
    "alibi_slopes",
    "attention",
    "attention_weights",
    "causal_mask",
    "experiment",
    "fire_distance",
    "frequencies",
    "kerple_log_bias",
    "kerple_power_bias",
    "plot",
    "rope",
    "rope_frequencies",
    "self_attention",
    "shaw_relative_indices",
    "sinusoidal",
    "t5_relative_bucket",
]
