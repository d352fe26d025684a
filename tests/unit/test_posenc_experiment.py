"""posenc.experiment: hand-written gradients against finite differences, Adam against a
hand computation, each task's labels computed a second way, the schemes against posenc's
own functions, determinism, shapes and dtypes, and argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc
from posenc import experiment as ex


def tiny_model(task: ex.Task | str, scheme: str, *, seed: int = 1, length: int = 7) -> ex.Model:
    """A small model with every weight (bucket biases and readout bias too) moved away from its initial value."""
    rng = np.random.default_rng(seed)
    model = ex.init_model(task, scheme, length=length, d_model=8, n_heads=2, rng=rng)
    for name, value in model.params.items():
        model.params[name] = value + rng.normal(0.0, 0.5, value.shape)
    return model


def numeric_gradient(model: ex.Model, batch: ex.Batch, name: str, h: float = 1e-6) -> np.ndarray:
    """Central differences of the loss for every entry of ``model.params[name]``."""
    value = model.params[name]
    grad = np.zeros_like(value)
    for index in np.ndindex(value.shape):
        saved = value[index]
        value[index] = saved + h
        plus, _ = ex.loss_and_gradients(model, batch)
        value[index] = saved - h
        minus, _ = ex.loss_and_gradients(model, batch)
        value[index] = saved
        grad[index] = (plus - minus) / (2 * h)
    return grad


# --- gradients and Adam ---------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ex.SCHEMES)
@pytest.mark.parametrize("task", [ex.Task("copy", offset=2), ex.Task("latest-marked", symbols=3), "majority"])
def test_gradients_match_central_differences(task: ex.Task | str, scheme: str) -> None:
    model = tiny_model(task, scheme)
    batch = model.task.sample(np.random.default_rng(2), 3, 7)
    _, grads = ex.loss_and_gradients(model, batch)
    assert set(grads) == set(model.params)
    for name in model.params:
        numeric = numeric_gradient(model, batch, name)
        assert grads[name].shape == model.params[name].shape
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-6, atol=1e-8, err_msg=f"{scheme} {name}")


def test_gradients_at_a_longer_length() -> None:
    """Beyond the training length the T5 default reaches buckets training never saw; they still get gradients."""
    model = tiny_model("copy", "t5", length=4)
    batch = model.task.sample(np.random.default_rng(3), 2, 40)
    _, grads = ex.loss_and_gradients(model, batch)
    np.testing.assert_allclose(
        grads["bucket_bias"], numeric_gradient(model, batch, "bucket_bias"), rtol=1e-6, atol=1e-8
    )
    assert np.count_nonzero(grads["bucket_bias"].any(axis=1)) > 16  # distances >= 16 are in log buckets


def test_adam_against_a_hand_computation() -> None:
    theta = {"w": np.array([1.0, -2.0]), "b": np.array([0.5])}
    optimizer = ex.Adam(theta, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8)
    g1 = {"w": np.array([0.3, -4.0]), "b": np.array([0.0])}
    g2 = {"w": np.array([-0.1, 1.0]), "b": np.array([2.0])}
    optimizer.step(theta, g1)
    optimizer.step(theta, g2)
    for name, start in (("w", [1.0, -2.0]), ("b", [0.5])):
        for i, value in enumerate(start):
            m = v = 0.0
            for t, g in enumerate((g1[name][i], g2[name][i]), start=1):
                m = 0.9 * m + 0.1 * g
                v = 0.999 * v + 0.001 * g * g
                value -= 0.1 * (m / (1 - 0.9**t)) / (math.sqrt(v / (1 - 0.999**t)) + 1e-8)
            assert theta[name][i] == pytest.approx(value, rel=1e-14, abs=1e-15)
    assert optimizer.t == 2


def test_adam_first_step_is_lr_times_sign() -> None:
    theta = {"w": np.array([0.0, 0.0, 0.0])}
    ex.Adam(theta, lr=0.01).step(theta, {"w": np.array([5.0, -1e-3, 0.0])})
    np.testing.assert_allclose(theta["w"], [-0.01, 0.01, 0.0], rtol=1e-5)


# --- tasks: labels a second way ------------------------------------------------------------------


def test_copy_labels() -> None:
    task = ex.Task("copy", offset=4, symbols=5)
    batch = task.sample(np.random.default_rng(0), 6, 20)
    for row in range(6):
        for t in range(20):
            assert batch.mask[row, t] == (t >= 4)
            if t >= 4:
                assert batch.labels[row, t] == batch.tokens[row, t - 4]
    assert batch.tokens.min() >= 0 and batch.tokens.max() < 5


def test_latest_marked_labels() -> None:
    task = ex.Task("latest-marked", symbols=4, mark_rate=0.3)
    batch = task.sample(np.random.default_rng(0), 6, 30)
    assert batch.mask.all()
    for row in range(6):
        latest = None
        for t, token in enumerate(batch.tokens[row].tolist()):
            symbol, marked = token % 4, token >= 4
            if marked:
                latest = symbol
            if t == 0:
                assert marked  # position 0 is always marked
            assert batch.labels[row, t] == latest
    marks = batch.tokens[:, 1:] >= 4
    assert 0.1 < marks.mean() < 0.5  # about mark_rate


def test_majority_labels() -> None:
    batch = ex.Task("majority").sample(np.random.default_rng(0), 8, 25)
    for row in range(8):
        ones = zeros = 0
        for t, bit in enumerate(batch.tokens[row].tolist()):
            ones, zeros = ones + (bit == 1), zeros + (bit == 0)
            assert batch.mask[row, t] == (ones != zeros)
            if ones != zeros:
                assert batch.labels[row, t] == int(ones > zeros)


@pytest.mark.parametrize("task", ex.TASKS)
def test_batches_are_intp(task: str) -> None:
    batch = ex.Task(task).sample(np.random.default_rng(0), 3, 9)
    assert batch.tokens.shape == batch.labels.shape == batch.mask.shape == (3, 9)
    assert batch.tokens.dtype == np.intp and batch.labels.dtype == np.intp and batch.mask.dtype == np.bool_
    spec = ex.Task(task)
    assert batch.tokens.max() < spec.vocab_size and batch.labels.max() < spec.num_classes


# --- the schemes against posenc ----------------------------------------------------------------------


def test_rope_in_the_model_is_posenc_rope() -> None:
    model = tiny_model("copy", "rope")
    tables = ex._tables(model, 9)
    x = np.random.default_rng(0).normal(size=(2, 9, 4))  # (batch, n, head_dim)
    np.testing.assert_allclose(ex._rotate(x, tables.cos, tables.sin), posenc.rope(x), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(ex._rotate(ex._rotate(x, tables.cos, tables.sin), tables.cos, -tables.sin), x)


def test_fixed_tables_are_posencs() -> None:
    causal = posenc.causal_mask(10)
    alibi = ex._tables(tiny_model("copy", "alibi"), 10).bias
    np.testing.assert_array_equal(alibi[:, causal], posenc.alibi_bias(2, 10)[:, causal])
    assert np.all(np.isneginf(alibi[:, ~causal]))
    np.testing.assert_array_equal(ex._tables(tiny_model("copy", "sinusoidal"), 10).positions, posenc.sinusoidal(10, 8))
    offsets = np.arange(10)[None, :] - np.arange(10)[:, None]
    for scheme, (num_buckets, max_distance) in (("t5", (32, 128)), ("t5-sized", (7, 7))):
        model = tiny_model("copy", scheme)
        assert model.buckets == (num_buckets, max_distance)
        buckets = ex._tables(model, 10).buckets
        assert buckets.dtype == np.intp
        expected = posenc.t5_relative_bucket(
            offsets, bidirectional=False, num_buckets=num_buckets, max_distance=max_distance
        )
        np.testing.assert_array_equal(buckets, expected)


def test_t5_sized_buckets_follow_the_length() -> None:
    for length, expected in ((4, (4, 4)), (16, (16, 16)), (64, (32, 64))):
        model = ex.init_model("majority", "t5-sized", length=length, rng=np.random.default_rng(0))
        assert model.buckets == expected and model.params["bucket_bias"].shape == (expected[0], 4)


@pytest.mark.parametrize("scheme", ex.SCHEMES)
def test_the_model_is_causal(scheme: str) -> None:
    model = tiny_model("copy", scheme)
    tokens = np.random.default_rng(0).integers(0, 8, size=(2, 7))
    changed = tokens.copy()
    changed[:, 4:] = (changed[:, 4:] + 1) % 8
    before, after = ex.forward(model, tokens), ex.forward(model, changed)
    np.testing.assert_array_equal(before[:, :4], after[:, :4])
    assert not np.allclose(before[:, 4:], after[:, 4:])


def test_nope_sees_order_only_through_the_mask() -> None:
    """Without positions, the last position's logits are a function of the set of tokens."""
    model = tiny_model("majority", "nope")
    tokens = np.array([[0, 1, 1, 0, 1]])
    shuffled = np.array([[1, 0, 0, 1, 1]])  # same tokens, same last token
    np.testing.assert_allclose(ex.forward(model, tokens)[0, -1], ex.forward(model, shuffled)[0, -1])


def test_softmax_survives_scores_far_above_the_diagonal() -> None:
    scores = np.array([[[0.0, -np.inf], [-900.0, -901.0]], [[5.0, -np.inf], [1000.0, 3.0]]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no warning escapes
        weights = ex._softmax(scores.copy())
    assert np.all(np.isfinite(weights))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    np.testing.assert_allclose(weights[0, 1], [1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1))])
    np.testing.assert_allclose(weights[1], [[1.0, 0.0], [1.0, 0.0]])


# --- training and evaluation ---------------------------------------------------------------------


def test_training_is_deterministic() -> None:
    first = ex.train("latest-marked", "t5", length=8, steps=15, seed=4, batch_size=8)
    second = ex.train("latest-marked", "t5", length=8, steps=15, seed=4, batch_size=8)
    other = ex.train("latest-marked", "t5", length=8, steps=15, seed=5, batch_size=8)
    assert first.losses == second.losses and len(first.losses) == 15
    for name in first.params:
        np.testing.assert_array_equal(first.params[name], second.params[name])
    assert first.losses != other.losses
    assert ex.evaluate(first, tokens_per_length=256) == ex.evaluate(second, tokens_per_length=256)


def test_training_learns_the_majority() -> None:
    model = ex.train("majority", "nope", length=16, steps=150, seed=0)
    assert np.mean(model.losses[-10:]) < 0.2 * model.losses[0]
    accuracy = ex.evaluate(model, multiples=(1, 4), tokens_per_length=1024)
    assert accuracy[1] > 0.95 and accuracy[4] > 0.95


def test_callback_sees_every_step_and_can_interrupt() -> None:
    seen: list[tuple[int, float]] = []
    model = ex.train("copy", "alibi", length=8, steps=5, batch_size=4, callback=lambda s, loss: seen.append((s, loss)))
    assert [s for s, _ in seen] == [1, 2, 3, 4, 5] and [loss for _, loss in seen] == model.losses

    def stop(step: int, loss: float) -> None:
        if step == 3:
            raise KeyboardInterrupt  # what Pyodide's Stop raises between bytecodes

    with pytest.raises(KeyboardInterrupt):
        ex.train("copy", "alibi", length=8, steps=50, batch_size=4, callback=stop)


def test_evaluate_shapes_and_learned_table() -> None:
    model = ex.train("copy", "learned", length=8, steps=2, batch_size=4)
    accuracy = ex.evaluate(model, tokens_per_length=128)
    assert list(accuracy) == [1, 2, 4, 8]
    assert 0.0 <= accuracy[1] <= 1.0 and all(math.isnan(accuracy[m]) for m in (2, 4, 8))
    with pytest.raises(ValueError, match="learned table has no row for positions >= 8"):
        ex.forward(model, np.zeros((1, 9), dtype=np.intp))
    logits = ex.forward(model, np.zeros((3, 8), dtype=np.intp))
    assert logits.shape == (3, 8, 8) and logits.dtype == np.float64
    assert ex.predict(model, np.zeros((3, 5), dtype=np.intp)).dtype == np.intp


def test_evaluation_data_are_the_same_for_every_scheme() -> None:
    """A model that always answers the same label scores the label frequency, identically for two schemes."""
    scores = []
    for scheme in ("nope", "rope"):
        model = ex.init_model("copy", scheme, length=8, rng=np.random.default_rng(0))
        model.params["w_out"][:] = 0.0
        model.params["b_out"][:] = np.arange(8.0)  # always predicts label 7
        scores.append(ex.evaluate(model, tokens_per_length=512))
    assert scores[0] == scores[1]
    assert all(0.05 < value < 0.2 for value in scores[0].values())  # about 1/8


def test_attention_weights_are_the_softmax_written_out() -> None:
    """Head h's weights from the parameters by plain loops: q k / sqrt(e) plus ALiBi's bias, softmax over j <= i."""
    model = tiny_model("copy", "alibi")
    tokens = np.array([[1, 5, 0, 7, 2]])
    weights = ex.attention_weights(model, tokens)
    assert weights.shape == (1, 2, 5, 5)
    x = model.params["embedding"][tokens[0]]  # (n, d)
    e = model.d_model // model.n_heads
    slopes = [2 ** (-8 * (h + 1) / model.n_heads) for h in range(model.n_heads)]
    for h in range(model.n_heads):
        part = slice(h * e, (h + 1) * e)
        q, k = ((x @ model.params[name])[:, part] for name in ("w_q", "w_k"))
        for i in range(5):
            scores = [q[i] @ k[j] / math.sqrt(e) - slopes[h] * (i - j) for j in range(i + 1)]
            exps = [math.exp(s - max(scores)) for s in scores]
            assert weights[0, h, i, : i + 1] == pytest.approx([v / sum(exps) for v in exps], rel=1e-12)
            assert np.all(weights[0, h, i, i + 1 :] == 0.0)


def test_accuracy_by_position_splits_the_accuracy_of_the_same_sequences() -> None:
    """Weighted by the labelled count of each position, the split gives back the overall accuracy."""
    model = ex.train("copy", "t5-sized", length=8, steps=20, batch_size=8, seed=0)
    by_position = ex.accuracy_by_position(model, 32, sequences=16, seed=5)
    batch = model.task.sample(np.random.default_rng(5), 16, 32)
    right = ex.predict(model, batch.tokens) == batch.labels
    assert by_position.shape == (32,) and np.isnan(by_position[:3]).all()
    assert by_position[3:] == pytest.approx(right[:, 3:].mean(axis=0))
    counts = batch.mask.sum(axis=0)
    assert np.nansum(by_position * counts) / counts.sum() == pytest.approx(right[batch.mask].mean())
    with pytest.raises(TypeError, match="model must be a Model"):
        ex.accuracy_by_position("model", 8)
    with pytest.raises(ValueError, match="sequences must be positive"):
        ex.accuracy_by_position(model, 8, sequences=0)
    with pytest.raises(ValueError, match="learned table has no row"):
        ex.accuracy_by_position(ex.train("copy", "learned", length=8, steps=1, batch_size=2), 9)


def test_evaluate_another_copy_offset() -> None:
    model = ex.train("copy", "t5-sized", length=8, steps=2, batch_size=4)
    assert list(ex.evaluate(model, ex.Task("copy", offset=1), multiples=(1,), tokens_per_length=64)) == [1]
    with pytest.raises(ValueError, match="tokens"):
        ex.evaluate(model, "majority")


# --- argument errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"task": "sort"}, ValueError, "task must be one of"),
        ({"task": 3}, TypeError, "task must be a Task"),
        ({"scheme": "xpos"}, ValueError, "scheme must be one of"),
        ({"length": 3}, ValueError, "length must be at least 4 for task 'copy'"),
        ({"length": 16.0}, TypeError, "length"),
        ({"steps": 0}, ValueError, "steps must be positive"),
        ({"seed": -1}, ValueError, "seed must be non-negative"),
        ({"seed": None}, TypeError, "seed"),
        ({"seed": 1.5}, TypeError, "seed"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"d_model": 30}, ValueError, "d_model must be a multiple of n_heads"),
        ({"d_model": 12, "n_heads": 4, "scheme": "rope"}, ValueError, "even head width"),
        ({"d_model": 9, "n_heads": 1, "scheme": "sinusoidal"}, ValueError, "even d_model"),
        ({"n_heads": 0}, ValueError, "n_heads"),
        ({"lr": -0.1}, ValueError, "lr"),
        ({"callback": "print"}, TypeError, "callback must be callable"),
    ],
)
def test_train_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    args = {"task": "copy", "scheme": "rope", "length": 8, "steps": 1, **kwargs}
    task, scheme = args.pop("task"), args.pop("scheme")
    with pytest.raises(error, match=match):
        ex.train(task, scheme, **args)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"name": "copy", "offset": 0}, ValueError, "offset must be positive"),
        ({"name": "copy", "offset": 2.0}, TypeError, "offset"),
        ({"name": "copy", "symbols": 1}, ValueError, "symbols must be at least 2"),
        ({"name": "latest-marked", "mark_rate": 0.0}, ValueError, "mark_rate"),
        ({"name": "latest-marked", "mark_rate": 1.5}, ValueError, r"mark_rate must be in \(0, 1\]"),
    ],
)
def test_task_bad_options(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ex.Task(**kwargs)


def test_other_bad_arguments() -> None:
    model = tiny_model("copy", "nope")
    with pytest.raises(ValueError, match=r"tokens must be in 0 \.\. 7"):
        ex.forward(model, [[0, 8]])
    with pytest.raises(ValueError, match="tokens must have shape"):
        ex.forward(model, [0, 1, 2])
    with pytest.raises(TypeError, match="tokens must hold integers"):
        ex.forward(model, [[0.0, 1.0]])
    with pytest.raises(TypeError, match=r"rng must be a numpy\.random\.Generator"):
        ex.init_model("copy", "nope", length=8, rng=0)
    with pytest.raises(TypeError, match="model must be a Model"):
        ex.evaluate("model")
    with pytest.raises(ValueError, match="multiples must be positive"):
        ex.evaluate(model, multiples=(1, 0))
    with pytest.raises(ValueError, match="beta1 must be in"):
        ex.Adam(model.params, beta1=1.0)
    with pytest.raises(TypeError, match="beta2"):
        ex.Adam(model.params, beta2="0.9")
    with pytest.raises(ValueError, match="not built with"):
        ex.Adam({"w": np.zeros(2)}).step({"w": np.zeros(2)}, {"v": np.zeros(2)})
    with pytest.raises(ValueError, match="batch_size must be positive"):
        ex.Task("copy").sample(np.random.default_rng(0), 0, 8)


def test_public_names() -> None:
    assert set(ex.__all__) >= {"train", "evaluate", "Task", "Model", "Adam", "TASKS", "SCHEMES", "MULTIPLES"}
    assert ex.SCHEMES == ("nope", "sinusoidal", "learned", "rope", "alibi", "t5", "t5-sized")
    assert ex.TASKS == ("copy", "latest-marked", "majority")
    assert posenc.experiment is ex
    assert "Model(task=" in repr(tiny_model("copy", "nope")) and "params" not in repr(tiny_model("copy", "nope"))
