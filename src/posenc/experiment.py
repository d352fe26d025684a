"""Length generalization in the page: train one causal attention layer, test it on longer inputs.

A model small enough to train in a second or two, in plain numpy, with its
gradients written out by hand (the tests check them against finite differences):

    token embedding (+ absolute positions) -> one causal attention layer with
    ``n_heads`` heads (+ relative positions) -> residual -> linear readout per position

It is trained with Adam on one of three synthetic tasks at a length ``L`` and
evaluated at ``1, 2, 4, 8 x L``. Each task needs a different kind of position
information, so the schemes fail in different places:

* ``"copy"`` -- output the token ``offset`` positions back (an exact relative offset);
* ``"latest-marked"`` -- output the most recent marked token (content plus recency);
* ``"majority"`` -- output the majority bit of the prefix so far (no position at all:
  uniform attention solves it).

The schemes (``SCHEMES``) are where positions enter:

* ``"nope"`` -- none: the causal mask is the only order the model sees;
* ``"sinusoidal"`` -- ``posenc.sinusoidal`` added to the embeddings;
* ``"learned"`` -- a trained table of ``L`` rows added to the embeddings. It has no
  row for a position ``>= L``, so :func:`evaluate` reports ``nan`` (not applicable)
  for longer inputs: clamping to the last row or using untrained rows would test a
  different model, and ``posenc.LearnedEmbedding`` refuses such positions too;
* ``"rope"`` -- queries and keys rotated as ``posenc.rope`` does (interleaved pairs);
* ``"alibi"`` -- the fixed bias ``posenc.alibi_bias`` on the scores;
* ``"t5"`` -- a learned bias per head and bucket, ``posenc.t5_relative_bucket`` with
  transformers' decoder defaults (causal, 32 buckets, max distance 128);
* ``"t5-sized"`` -- the same with ``min(32, L)`` buckets and max distance ``L``, so all
  distances from about ``L`` on share the last bucket, which training reaches. At
  ``L = 16`` both T5 schemes give each training distance a bucket of its own, so the two
  models train identically; they differ only in what the longer distances read (the
  default's buckets 16 to 31 are never trained and keep their initial bias 0).

Everything is float64 and deterministic given ``seed``: one ``np.random.default_rng(seed)``
draws the initial weights and then every training batch. Training is a Python loop
of short numpy steps, so an interrupt (Pyodide's Stop raises ``KeyboardInterrupt``
between bytecodes) lands between two steps, and an optional callback sees each step.
Integer arrays are ``np.intp``: Pyodide's wasm32 refuses an int64 ``np.bincount``.

Examples
--------
>>> from posenc import experiment
>>> model = experiment.train("copy", "t5-sized", length=8, steps=3, seed=0, batch_size=4)
>>> len(model.losses)
3
>>> sorted(experiment.evaluate(model, multiples=(1, 2), tokens_per_length=64))  # accuracy at L and 2 L
[1, 2]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc._alibi import alibi_bias
from posenc._attention import causal_mask
from posenc._relative import t5_relative_bucket
from posenc._rope import _rotate_pairs
from posenc._sinusoidal import frequencies, sinusoidal
from posenc._validate import as_int_array, check_positive, check_positive_int

__all__ = [
    "MULTIPLES",
    "SCHEMES",
    "TASKS",
    "Adam",
    "Batch",
    "Model",
    "Task",
    "accuracy_by_position",
    "attention_weights",
    "evaluate",
    "forward",
    "init_model",
    "loss_and_gradients",
    "predict",
    "train",
]

TASKS: tuple[str, ...] = ("copy", "latest-marked", "majority")
"""Names of the synthetic tasks."""

SCHEMES: tuple[str, ...] = ("nope", "sinusoidal", "learned", "rope", "alibi", "t5", "t5-sized")
"""Names of the position schemes, in the order the lesson lists them."""

MULTIPLES: tuple[int, ...] = (1, 2, 4, 8)
"""Evaluation lengths, as multiples of the training length."""

_T5_DEFAULT = (32, 128)  # transformers' T5Config: relative_attention_num_buckets, relative_attention_max_distance


# --- tasks -------------------------------------------------------------------------------


class Batch(NamedTuple):
    """Inputs and per-position targets of ``batch_size`` sequences of one length.

    ``tokens`` and ``labels`` are ``np.intp`` arrays of shape ``(batch_size, length)``;
    ``mask`` (bool, same shape) is True where a position has a label. Unlabelled
    positions hold label 0, which the loss and the accuracy skip.
    """

    tokens: NDArray[np.intp]
    labels: NDArray[np.intp]
    mask: NDArray[np.bool_]


@dataclass(frozen=True)
class Task:
    r"""One synthetic task and its options; ``Task("copy")`` has the defaults.

    * ``"copy"``: tokens uniform over ``symbols`` values; the label at ``t`` is
      :math:`x_{t - \mathrm{offset}}`, and the first ``offset`` positions have none.
    * ``"latest-marked"``: each token is a symbol and a mark (token id
      ``symbol + symbols * marked``), marked with probability ``mark_rate`` and
      always at position 0; the label at ``t`` is the symbol of the latest marked
      position :math:`s \le t`.
    * ``"majority"``: bits; the label at ``t`` is 1 if ones outnumber zeros in
      :math:`x_0 \dots x_t`, 0 if zeros do, and none on a tie.

    Parameters
    ----------
    name : {"copy", "latest-marked", "majority"}
    offset : int, default 3
        How far back ``"copy"`` looks, >= 1.
    symbols : int, default 8
        Number of symbols of ``"copy"`` and ``"latest-marked"``, >= 2.
    mark_rate : float, default 0.25
        Probability of a mark in ``"latest-marked"``, in ``(0, 1]``.

    Raises
    ------
    ValueError, TypeError
        For an unknown name or an option out of range (the message names it).
    """

    name: str
    offset: int = 3
    symbols: int = 8
    mark_rate: float = 0.25

    def __post_init__(self) -> None:
        if self.name not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.name!r}")
        check_positive_int(self.offset, "offset")
        if check_positive_int(self.symbols, "symbols") < 2:
            raise ValueError(f"symbols must be at least 2, got {self.symbols}")
        if check_positive(self.mark_rate, "mark_rate") > 1.0:
            raise ValueError(f"mark_rate must be in (0, 1], got {self.mark_rate}")

    @property
    def vocab_size(self) -> int:
        """Number of distinct input tokens."""
        return {"copy": self.symbols, "latest-marked": 2 * self.symbols, "majority": 2}[self.name]

    @property
    def num_classes(self) -> int:
        """Number of distinct labels."""
        return 2 if self.name == "majority" else self.symbols

    def sample(self, rng: np.random.Generator, batch_size: int, length: int) -> Batch:
        """Draw ``batch_size`` sequences of ``length`` tokens and their labels with ``rng``."""
        batch_size = check_positive_int(batch_size, "batch_size")
        length = check_positive_int(length, "length")
        sampler = {"copy": _sample_copy, "latest-marked": _sample_latest_marked, "majority": _sample_majority}
        return sampler[self.name](self, rng, (batch_size, length))


def _sample_copy(task: Task, rng: np.random.Generator, shape: tuple[int, int]) -> Batch:
    """Label ``x[t - offset]`` where it exists."""
    tokens = rng.integers(0, task.symbols, size=shape).astype(np.intp)  # (batch, length)
    labels = np.zeros(shape, dtype=np.intp)
    labels[:, task.offset :] = tokens[:, : shape[1] - task.offset]
    mask = np.arange(shape[1]) >= task.offset  # (length,)
    return Batch(tokens, labels, np.broadcast_to(mask, shape).copy())


def _sample_latest_marked(task: Task, rng: np.random.Generator, shape: tuple[int, int]) -> Batch:
    """Label the symbol at the latest marked position so far (position 0 is always marked)."""
    symbols = rng.integers(0, task.symbols, size=shape).astype(np.intp)  # (batch, length)
    marked = rng.random(shape) < task.mark_rate
    marked[:, 0] = True
    latest = np.maximum.accumulate(np.where(marked, np.arange(shape[1]), 0), axis=1)  # index of the latest mark
    labels = np.take_along_axis(symbols, latest, axis=1)
    tokens = (symbols + task.symbols * marked).astype(np.intp)
    return Batch(tokens, labels.astype(np.intp), np.ones(shape, dtype=bool))


def _sample_majority(task: Task, rng: np.random.Generator, shape: tuple[int, int]) -> Batch:
    """Label 1 if ones lead in the prefix, 0 if zeros lead; ties carry no label."""
    bits = rng.integers(0, 2, size=shape).astype(np.intp)  # (batch, length)
    lead = 2 * np.cumsum(bits, axis=1) - np.arange(1, shape[1] + 1)  # ones minus zeros so far
    return Batch(bits, (lead > 0).astype(np.intp), lead != 0)


def _as_task(task: Task | str) -> Task:
    """A ``Task`` from a task or a task name."""
    if isinstance(task, Task):
        return task
    if not isinstance(task, str):
        raise TypeError(f"task must be a Task or one of the names {TASKS}, got {type(task).__name__} {task!r}")
    return Task(task)


# --- the model ---------------------------------------------------------------------------


@dataclass
class Model:
    """A trained (or freshly initialised) one-layer model and how it was built.

    Attributes
    ----------
    task : Task
    scheme : str
        One of ``SCHEMES``.
    length : int
        The training length ``L``.
    d_model, n_heads : int
        Width and number of heads (head width ``d_model // n_heads``).
    params : dict of str to ndarray of float64
        ``embedding`` (vocab, d_model); ``w_q``, ``w_k``, ``w_v`` (d_model, d_model);
        ``w_out`` (d_model, classes); ``b_out`` (classes,); and for ``"learned"``
        ``positions`` (L, d_model), for ``"t5"`` / ``"t5-sized"`` ``bucket_bias``
        (num_buckets, n_heads).
    losses : list of float
        The training loss at each step.
    """

    task: Task
    scheme: str
    length: int
    d_model: int
    n_heads: int
    params: dict[str, NDArray[np.float64]] = field(repr=False)
    losses: list[float] = field(default_factory=list, repr=False)
    _tables: dict[int, _Tables] = field(default_factory=dict, repr=False, compare=False)

    @property
    def buckets(self) -> tuple[int, int] | None:
        """``(num_buckets, max_distance)`` of a T5 scheme, else None."""
        if self.scheme == "t5":
            return _T5_DEFAULT
        if self.scheme == "t5-sized":
            return min(32, self.length), self.length
        return None


class _Tables(NamedTuple):
    """What depends on the sequence length ``n`` only, computed once per length."""

    bias: NDArray[np.float64]  # (n, n), or (n_heads, n, n) with ALiBi: the fixed bias, -inf above the diagonal
    positions: NDArray[np.float64] | None  # (n, d_model) sinusoid
    cos: NDArray[np.float64] | None  # (n, head_dim / 2) RoPE
    sin: NDArray[np.float64] | None
    buckets: NDArray[np.intp] | None  # (n, n) T5


def init_model(
    task: Task | str,
    scheme: str,
    *,
    length: int,
    d_model: int = 32,
    n_heads: int = 4,
    rng: np.random.Generator,
) -> Model:
    r"""A new model with random weights drawn from ``rng``.

    Embeddings are :math:`\mathcal{N}(0, 1)`, the projections and the readout
    :math:`\mathcal{N}(0, 1/d)`, a learned position table :math:`\mathcal{N}(0, 0.02^2)`
    (as ``posenc.LearnedEmbedding``); the readout bias and T5's bucket biases start at 0,
    so a bucket that training never reaches keeps the bias 0.

    Parameters
    ----------
    task : Task or str
        The task, or its name.
    scheme : str
        One of ``SCHEMES``.
    length : int
        Training length ``L``; at least 2, and at least ``offset + 1`` for ``"copy"``.
    d_model : int, default 32
        Model width, a multiple of ``n_heads`` with an even head width for ``"rope"``.
    n_heads : int, default 4
    rng : numpy.random.Generator

    Returns
    -------
    model : Model

    Raises
    ------
    TypeError, ValueError
        For an unknown scheme or task, or sizes that do not fit (the message names them).
    """
    task = _as_task(task)
    scheme, length, d_model, n_heads = _check_sizes(task, scheme, length, d_model, n_heads)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    scale = 1.0 / math.sqrt(d_model)
    params = {
        "embedding": rng.normal(0.0, 1.0, (task.vocab_size, d_model)),
        "w_q": rng.normal(0.0, scale, (d_model, d_model)),
        "w_k": rng.normal(0.0, scale, (d_model, d_model)),
        "w_v": rng.normal(0.0, scale, (d_model, d_model)),
        "w_out": rng.normal(0.0, scale, (d_model, task.num_classes)),
        "b_out": np.zeros(task.num_classes),
    }
    model = Model(task, scheme, length, d_model, n_heads, params)
    if scheme == "learned":
        params["positions"] = rng.normal(0.0, 0.02, (length, d_model))
    if model.buckets is not None:
        params["bucket_bias"] = np.zeros((model.buckets[0], n_heads))
    return model


def _check_sizes(task: Task, scheme: Any, length: Any, d_model: Any, n_heads: Any) -> tuple[str, int, int, int]:
    """Validate the scheme and the sizes together."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    length = check_positive_int(length, "length")
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    least = task.offset + 1 if task.name == "copy" else 2
    if length < least:
        raise ValueError(f"length must be at least {least} for task {task.name!r}, got {length}")
    if d_model % n_heads:
        raise ValueError(f"d_model must be a multiple of n_heads, got d_model={d_model} and n_heads={n_heads}")
    if scheme == "rope" and (d_model // n_heads) % 2:
        raise ValueError(
            f"scheme 'rope' needs an even head width d_model // n_heads (coordinates rotate in pairs), "
            f"got d_model={d_model} and n_heads={n_heads}"
        )
    if scheme == "sinusoidal" and d_model % 2:
        raise ValueError(f"scheme 'sinusoidal' needs an even d_model (sin/cos pairs), got d_model={d_model}")
    return scheme, length, d_model, n_heads


def _tables(model: Model, n: int) -> _Tables:
    """The length-``n`` tables of ``model``, cached on it."""
    if n not in model._tables:
        model._tables[n] = _build_tables(model, n)
    return model._tables[n]


def _build_tables(model: Model, n: int) -> _Tables:
    """Causal mask, fixed bias and the scheme's position tables for length ``n``."""
    bias = np.where(causal_mask(n), 0.0, -np.inf)  # (n, n): keys after the query get weight 0
    if model.scheme == "alibi":
        bias = alibi_bias(model.n_heads, n) + bias  # (n_heads, n, n)
    positions = sinusoidal(n, model.d_model) if model.scheme == "sinusoidal" else None
    cos = sin = buckets = None
    if model.scheme == "rope":
        angles = np.arange(n)[:, None] * frequencies(model.d_model // model.n_heads)  # (n, head_dim / 2)
        cos, sin = np.cos(angles), np.sin(angles)
    if model.buckets is not None:
        num_buckets, max_distance = model.buckets
        offsets = np.arange(n)[None, :] - np.arange(n)[:, None]  # (n, n): key j minus query i
        buckets = t5_relative_bucket(offsets, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance)
    return _Tables(bias, positions, cos, sin, buckets)


# --- forward and backward ----------------------------------------------------------------


def _split_heads(x: NDArray, n_heads: int) -> NDArray:
    """(batch, n, d) -> (batch, heads, n, d / heads)."""
    batch, n, d = x.shape
    return x.reshape(batch, n, n_heads, d // n_heads).transpose(0, 2, 1, 3)


def _merge_heads(x: NDArray) -> NDArray:
    """(batch, heads, n, head_dim) -> (batch, n, heads * head_dim)."""
    batch, heads, n, head_dim = x.shape
    return x.transpose(0, 2, 1, 3).reshape(batch, n, heads * head_dim)


def _rotate(x: NDArray, cos: NDArray, sin: NDArray) -> NDArray:
    """RoPE on interleaved pairs, as posenc.rope: ``(a, b) -> (a cos - b sin, a sin + b cos)``; ``-sin`` undoes it."""
    return _rotate_pairs(x, cos, sin, "interleaved")  # (..., n, head_dim)


def _softmax(scores: NDArray) -> NDArray:
    """Softmax over the last axis of square (..., n, n) causal scores.

    Row ``i`` is shifted by its diagonal score (query ``i`` against key ``i``, never
    masked), which is much faster than its maximum and, like it, depends on that
    row alone. The sum is then at least 1; only if a score lies ~690 above its
    diagonal (``exp`` overflows) are the rows shifted by their maxima instead.
    """
    ones = np.ones(scores.shape[-1])
    with np.errstate(over="ignore"):
        weights = np.exp(scores - np.diagonal(scores, axis1=-2, axis2=-1)[..., None])
    sums = weights @ ones  # row sums; a matmul is faster than .sum(axis=-1) on short rows
    if not sums.max() < 1e300:
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        sums = weights @ ones
    weights /= sums[..., None]
    return weights


def _score_bias(model: Model, tables: _Tables) -> NDArray:
    """The scheme's additive score bias with the causal mask, broadcastable to (batch, heads, n, n)."""
    if tables.buckets is None:
        return tables.bias
    learned = model.params["bucket_bias"][tables.buckets]  # (n, n, heads)
    return learned.transpose(2, 0, 1) + tables.bias  # (heads, n, n)


def _forward(model: Model, tokens: NDArray[np.intp]) -> tuple[NDArray, dict[str, Any]]:
    """Logits of shape (batch, n, classes) and what the backward pass needs."""
    p, n = model.params, tokens.shape[1]
    tables = _tables(model, n)
    x = p["embedding"][tokens]  # (batch, n, d)
    if tables.positions is not None:
        x = x + tables.positions
    if model.scheme == "learned":
        x = x + p["positions"][:n]
    q, k, v = (_split_heads(x @ p[name], model.n_heads) for name in ("w_q", "w_k", "w_v"))  # (batch, heads, n, e)
    if tables.cos is not None:
        q, k = _rotate(q, tables.cos, tables.sin), _rotate(k, tables.cos, tables.sin)
    q = q * (1.0 / math.sqrt(q.shape[-1]))  # scaled queries: scores q k^T / sqrt(e)
    weights = _softmax(q @ k.swapaxes(-1, -2) + _score_bias(model, tables))  # (batch, heads, n, n)
    mixed = weights @ v  # (batch, heads, n, e)
    hidden = x + _merge_heads(mixed)  # residual, (batch, n, d)
    logits = hidden @ p["w_out"] + p["b_out"]  # (batch, n, classes)
    cache = {"tokens": tokens, "tables": tables, "x": x, "q": q, "k": k, "v": v, "weights": weights}
    return logits, cache | {"mixed": mixed, "hidden": hidden}


def _cross_entropy(logits: NDArray, labels: NDArray[np.intp], mask: NDArray[np.bool_]) -> tuple[float, NDArray]:
    """Mean cross-entropy over the labelled positions and its gradient with respect to the logits."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (batch, n, classes)
    count = max(int(mask.sum()), 1)
    picked = np.take_along_axis(log_probs, labels[..., None], axis=-1)[..., 0]  # (batch, n)
    loss = -float(picked[mask].sum()) / count
    d_logits = np.exp(log_probs)
    d_logits[..., :] -= np.eye(logits.shape[-1])[labels]  # softmax - one_hot
    return loss, d_logits * (mask[..., None] / count)


def _attention_backward(model: Model, cache: dict[str, Any], d_hidden: NDArray) -> dict[str, NDArray]:
    """Gradients of the queries, keys and values (batch, heads, n, e) and of the bucket biases."""
    q, k, v, weights = cache["q"], cache["k"], cache["v"], cache["weights"]  # q is scaled by 1 / sqrt(e)
    d_out = _split_heads(d_hidden, model.n_heads)  # (batch, heads, n, e)
    d_scores = d_out @ v.swapaxes(-1, -2)  # d weights, (batch, heads, n, n)
    row_dot = (d_out * cache["mixed"]).sum(axis=-1)  # sum_j w_ij dw_ij = d_out_i . out_i, (batch, heads, n)
    d_scores -= row_dot[..., None]
    d_scores *= weights  # softmax backward: w * (dw - sum_j w dw)
    scale = 1.0 / math.sqrt(q.shape[-1])
    grads = {"q": (d_scores @ k) * scale, "k": d_scores.swapaxes(-1, -2) @ q, "v": weights.swapaxes(-1, -2) @ d_out}
    tables = cache["tables"]
    if tables.cos is not None:
        for key in ("q", "k"):  # rotate back: R(-theta) is R(theta) transposed
            grads[key] = _rotate(grads[key], tables.cos, -tables.sin)
    if tables.buckets is not None:
        grads["bucket_bias"] = _bucket_gradient(d_scores.sum(axis=0), tables.buckets, model.buckets[0])
    return grads


def _bucket_gradient(d_bias: NDArray, buckets: NDArray[np.intp], num_buckets: int) -> NDArray:
    """Sum the score gradient (heads, n, n) of every pair into its bucket: (num_buckets, heads)."""
    flat = buckets.ravel()  # intp: np.bincount refuses int64 on wasm32
    columns = [np.bincount(flat, weights=head.ravel(), minlength=num_buckets) for head in d_bias]
    return np.stack(columns, axis=1)


def _gradients(model: Model, cache: dict[str, Any], d_logits: NDArray) -> dict[str, NDArray[np.float64]]:
    """Backward pass from the logits' gradient to every parameter."""
    p, x, d = model.params, cache["x"], model.d_model
    grads = {
        "w_out": cache["hidden"].reshape(-1, d).T @ d_logits.reshape(-1, d_logits.shape[-1]),
        "b_out": d_logits.sum(axis=(0, 1)),
    }
    d_hidden = d_logits @ p["w_out"].T  # (batch, n, d)
    d_x = d_hidden.copy()  # the residual
    attention = _attention_backward(model, cache, d_hidden)
    for name, key in (("w_q", "q"), ("w_k", "k"), ("w_v", "v")):
        d_projected = _merge_heads(attention[key])  # (batch, n, d)
        grads[name] = x.reshape(-1, d).T @ d_projected.reshape(-1, d)
        d_x += d_projected @ p[name].T
    one_hot = np.eye(model.task.vocab_size)[cache["tokens"]]  # (batch, n, vocab)
    grads["embedding"] = one_hot.reshape(-1, one_hot.shape[-1]).T @ d_x.reshape(-1, d)
    if "positions" in p:
        grads["positions"] = np.zeros_like(p["positions"])
        grads["positions"][: x.shape[1]] = d_x.sum(axis=0)
    if "bucket_bias" in attention:
        grads["bucket_bias"] = attention["bucket_bias"]
    return grads


def _as_tokens(model: Model, tokens: ArrayLike) -> NDArray[np.intp]:
    """Check a (batch, n) array of token ids for ``model``."""
    tokens = as_int_array(tokens, "tokens")
    if tokens.ndim != 2 or tokens.shape[1] < 1:
        raise ValueError(f"tokens must have shape (batch, length) with length >= 1, got shape {tokens.shape}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= model.task.vocab_size):
        raise ValueError(f"tokens must be in 0 .. {model.task.vocab_size - 1} for task {model.task.name!r}")
    if model.scheme == "learned" and tokens.shape[1] > model.length:
        raise ValueError(
            f"a learned table has no row for positions >= {model.length}: "
            f"scheme 'learned' cannot read length {tokens.shape[1]} (trained at length={model.length})"
        )
    return tokens.astype(np.intp)


def forward(model: Model, tokens: ArrayLike) -> NDArray[np.float64]:
    """The model's logits for each position.

    Parameters
    ----------
    model : Model
    tokens : array_like of int, shape (batch, n)
        Token ids in ``0 .. vocab_size - 1``; any ``n >= 1`` (at most ``L`` for ``"learned"``).

    Returns
    -------
    logits : ndarray of float64, shape (batch, n, num_classes)

    Raises
    ------
    TypeError, ValueError
        If ``tokens`` is not a 2-D integer array of valid ids, or too long for a learned table.
    """
    return _forward(model, _as_tokens(model, tokens))[0]


def predict(model: Model, tokens: ArrayLike) -> NDArray[np.intp]:
    """The most likely label at each position, shape (batch, n); see :func:`forward`."""
    return forward(model, tokens).argmax(axis=-1).astype(np.intp)


def attention_weights(model: Model, tokens: ArrayLike) -> NDArray[np.float64]:
    r"""The attention weights of every head: row ``i`` of head ``h`` is query ``i``'s softmax over its keys.

    .. math:: \alpha_{h,ij} = \mathrm{softmax}_j\!\left(\frac{q_{h,i} \cdot k_{h,j}}{\sqrt{e}} + b_{h,ij}\right),
        \qquad j \le i

    with :math:`b` the scheme's score bias (ALiBi's, T5's bucket bias, or 0) and :math:`e`
    the head width; keys after the query have weight 0.

    Parameters
    ----------
    model : Model
    tokens : array_like of int, shape (batch, n)
        As for :func:`forward`.

    Returns
    -------
    weights : ndarray of float64, shape (batch, n_heads, n, n)
        Each row sums to 1.

    Raises
    ------
    TypeError, ValueError
        As :func:`forward`.

    Examples
    --------
    >>> model = init_model("copy", "alibi", length=8, rng=np.random.default_rng(0))
    >>> w = attention_weights(model, [[1, 2, 3, 4]])
    >>> w.shape, bool(np.allclose(w.sum(axis=-1), 1)), float(w[0, 0, 0, 1])   # causal: no weight on a later key
    ((1, 4, 4, 4), True, 0.0)
    """
    return _forward(model, _as_tokens(model, tokens))[1]["weights"]


def accuracy_by_position(
    model: Model,
    length: int,
    *,
    sequences: int = 64,
    seed: int = 1,
) -> NDArray[np.float64]:
    """Accuracy at each query position of ``sequences`` fresh sequences of ``length`` tokens.

    Where :func:`evaluate` gives one number per length, this splits it by the
    position of the query, which shows *where* in a long input a model goes
    wrong (a late query has more keys to share its attention with).

    Parameters
    ----------
    model : Model
    length : int
        Test length ``n`` (at most ``L`` for ``"learned"``).
    sequences : int, default 64
        How many sequences to draw, >= 1.
    seed : int, default 1
        Non-negative; the data's own seed (the same data for every scheme).

    Returns
    -------
    accuracy : ndarray of float64, shape (length,)
        The fraction of sequences predicted right at each position; ``nan`` where
        no sequence has a label (the first ``offset`` positions of ``"copy"``).

    Raises
    ------
    TypeError, ValueError
        If ``model`` is not a Model or a number is out of range (the message names it).

    Examples
    --------
    >>> model = train("copy", "t5-sized", length=8, steps=3, seed=0, batch_size=4)
    >>> accuracy = accuracy_by_position(model, 16, sequences=8)
    >>> accuracy.shape, bool(np.isnan(accuracy[:3]).all())   # copy 3 back: no label before position 3
    ((16,), True)
    """
    _check_model(model)
    length = check_positive_int(length, "length")
    sequences = check_positive_int(sequences, "sequences")
    batch = model.task.sample(np.random.default_rng(_check_seed(seed)), sequences, length)
    right = (predict(model, batch.tokens) == batch.labels) & batch.mask  # (sequences, length)
    labelled = batch.mask.sum(axis=0)  # (length,)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(labelled > 0, right.sum(axis=0) / labelled, np.nan)


def loss_and_gradients(model: Model, batch: Batch) -> tuple[float, dict[str, NDArray[np.float64]]]:
    r"""Mean cross-entropy over the labelled positions and its gradient for every parameter.

    .. math:: \mathcal{L} = -\frac{1}{|M|} \sum_{(b, t) \in M} \log \mathrm{softmax}(z_{b,t})_{y_{b,t}}

    The backward pass is written out (softmax, attention, RoPE's inverse rotation,
    T5's bucket sums, embedding rows); the tests compare it with central finite differences.

    Parameters
    ----------
    model : Model
    batch : Batch
        From ``model.task.sample``.

    Returns
    -------
    loss : float
    grads : dict of str to ndarray
        One array per entry of ``model.params``, of the same shape.
    """
    tokens = _as_tokens(model, batch.tokens)
    logits, cache = _forward(model, tokens)
    loss, d_logits = _cross_entropy(logits, np.asarray(batch.labels, dtype=np.intp), np.asarray(batch.mask, dtype=bool))
    return loss, _gradients(model, cache, d_logits)


# --- training ----------------------------------------------------------------------------


class Adam:
    r"""Adam (Kingma and Ba 2015, algorithm 1), updating arrays in place.

    .. math::

        m \leftarrow \beta_1 m + (1 - \beta_1) g, \quad
        v \leftarrow \beta_2 v + (1 - \beta_2) g^2, \quad
        \theta \leftarrow \theta - \eta \, \frac{m / (1 - \beta_1^t)}{\sqrt{v / (1 - \beta_2^t)} + \epsilon}

    Parameters
    ----------
    params : mapping of str to ndarray
        The arrays to train (their shapes set the moment buffers).
    lr : float, default 0.01
    beta1, beta2 : float, default 0.9, 0.999
    eps : float, default 1e-8

    Examples
    --------
    >>> theta = {"w": np.array([1.0])}
    >>> opt = Adam(theta, lr=0.1)
    >>> opt.step(theta, {"w": np.array([2.0])})  # the first step moves by lr, whatever the gradient's size
    >>> theta["w"]
    array([0.9])
    """

    def __init__(
        self,
        params: Mapping[str, NDArray[np.float64]],
        *,
        lr: float = 0.01,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
    ):
        self.lr = check_positive(lr, "lr")
        self.beta1, self.beta2 = _check_beta(beta1, "beta1"), _check_beta(beta2, "beta2")
        self.eps = check_positive(eps, "eps")
        self.t = 0
        self.m = {name: np.zeros_like(value) for name, value in params.items()}
        self.v = {name: np.zeros_like(value) for name, value in params.items()}

    def step(self, params: Mapping[str, NDArray[np.float64]], grads: Mapping[str, NDArray[np.float64]]) -> None:
        """One update of every array in ``params`` from ``grads`` (same names and shapes)."""
        unknown = sorted(set(grads) - set(self.m))
        if unknown:
            raise ValueError(f"grads has arrays this Adam was not built with: {unknown} (it has {sorted(self.m)})")
        self.t += 1
        correction1, correction2 = 1.0 - self.beta1**self.t, 1.0 - self.beta2**self.t
        for name, grad in grads.items():
            m, v = self.m[name], self.v[name]
            m *= self.beta1
            m += (1.0 - self.beta1) * grad
            v *= self.beta2
            v += (1.0 - self.beta2) * grad * grad
            params[name] -= self.lr * (m / correction1) / (np.sqrt(v / correction2) + self.eps)


def _check_model(model: Any) -> None:
    """A Model, from train or init_model."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a Model (from train or init_model), got {type(model).__name__}")


def _check_beta(value: Any, name: str) -> float:
    """A decay rate in [0, 1)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number in [0, 1), got {type(value).__name__} {value!r}")
    if not 0.0 <= float(value) < 1.0:
        raise ValueError(f"{name} must be in [0, 1), got {value!r}")
    return float(value)


def _check_seed(seed: Any) -> int:
    """A non-negative int (None is refused: a run must be repeatable)."""
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be a non-negative int, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return int(seed)


def train(
    task: Task | str,
    scheme: str,
    *,
    length: int = 16,
    steps: int = 300,
    seed: int = 0,
    batch_size: int = 32,
    d_model: int = 32,
    n_heads: int = 4,
    lr: float = 0.01,
    callback: Callable[[int, float], object] | None = None,
) -> Model:
    """Train a new model on ``task`` at length ``L = length``.

    One ``np.random.default_rng(seed)`` draws the initial weights, then a fresh
    batch for every step, so the same arguments give the same model. Each step
    is one forward and backward pass and one Adam update.

    Parameters
    ----------
    task : Task or str
        One of ``TASKS`` or a ``Task`` with options.
    scheme : str
        One of ``SCHEMES``.
    length : int, default 16
        Training length ``L``.
    steps : int, default 300
    seed : int, default 0
        Non-negative.
    batch_size : int, default 32
    d_model, n_heads : int, default 32, 4
    lr : float, default 0.01
        Adam's step size.
    callback : callable, optional
        Called as ``callback(step, loss)`` after each step (``step`` from 1), e.g.
        to print a progress line.

    Returns
    -------
    model : Model
        With ``model.losses`` holding the loss of every step.

    Raises
    ------
    TypeError, ValueError
        For an unknown task or scheme or a bad size (see :func:`init_model`).
    """
    task = _as_task(task)
    steps = check_positive_int(steps, "steps")
    batch_size = check_positive_int(batch_size, "batch_size")
    seed = _check_seed(seed)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {type(callback).__name__}")
    rng = np.random.default_rng(seed)
    model = init_model(task, scheme, length=length, d_model=d_model, n_heads=n_heads, rng=rng)
    optimizer = Adam(model.params, lr=lr)
    for step in range(1, steps + 1):
        loss, grads = loss_and_gradients(model, task.sample(rng, batch_size, model.length))
        optimizer.step(model.params, grads)
        model.losses.append(loss)
        if callback is not None:
            callback(step, loss)
    return model


def evaluate(
    model: Model,
    task: Task | str | None = None,
    *,
    multiples: Iterable[int] = MULTIPLES,
    tokens_per_length: int = 4096,
    seed: int = 1,
) -> dict[int, float]:
    """Accuracy over the labelled positions of fresh sequences of ``m * L`` tokens, for each ``m``.

    Each length gets about ``tokens_per_length`` tokens (``ceil(tokens_per_length / (m L))``
    sequences); the data depend on ``seed``, ``L``, the task and ``multiples`` only, so
    every scheme is scored on the same sequences. Every labelled position counts,
    the first ``L`` as well as the new ones. A learned table cannot read past ``L``:
    its accuracy at ``m > 1`` is ``nan`` (not applicable).

    Parameters
    ----------
    model : Model
    task : Task or str, optional
        The task to draw from; by default the model's own. Another one must have the
        same tokens and labels (e.g. ``"copy"`` with another ``offset``).
    multiples : iterable of int, default (1, 2, 4, 8)
        Positive.
    tokens_per_length : int, default 4096
        Approximate number of tokens per length.
    seed : int, default 1
        Non-negative; the evaluation data's own seed.

    Returns
    -------
    accuracy : dict of int to float
        ``{m: fraction of labelled positions predicted right}``, in ``[0, 1]`` or ``nan``.

    Raises
    ------
    TypeError, ValueError
        If ``model`` is not a Model, ``task`` does not fit it, or a number is out of range.
    """
    _check_model(model)
    task = model.task if task is None else _as_task(task)
    if (task.vocab_size, task.num_classes) != (model.task.vocab_size, model.task.num_classes):
        raise ValueError(
            f"task {task.name!r} has {task.vocab_size} tokens and {task.num_classes} labels, "
            f"the model was built for {model.task.vocab_size} and {model.task.num_classes}"
        )
    multiples = [check_positive_int(m, "multiples") for m in multiples]
    budget = check_positive_int(tokens_per_length, "tokens_per_length")
    rng = np.random.default_rng(_check_seed(seed))
    accuracy = {}
    for m in multiples:
        n = m * model.length
        batch = task.sample(rng, -(-budget // n), n)  # drawn even when skipped: same data for every scheme
        if model.scheme == "learned" and n > model.length:
            accuracy[m] = float("nan")
            continue
        right = predict(model, batch.tokens) == batch.labels
        accuracy[m] = float(right[batch.mask].mean()) if batch.mask.any() else float("nan")
    return accuracy
