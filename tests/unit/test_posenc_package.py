"""Package surface: names, version, typing marker, no matplotlib at import time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import posenc

PUBLIC = {
    "LearnedEmbedding",
    "attention",
    "attention_weights",
    "causal_mask",
    "plot",
    "rope",
    "rope_frequencies",
    "alibi_slopes",
    "alibi_bias",
    "self_attention",
    "sinusoidal",
}


def test_all_lists_the_public_api() -> None:
    assert set(posenc.__all__) >= PUBLIC | {"__version__"}
    for name in posenc.__all__:
        assert hasattr(posenc, name), name


def test_version() -> None:
    assert posenc.__version__ == "0.1.0"


def test_py_typed_marker_ships() -> None:
    assert (Path(posenc.__file__).parent / "py.typed").is_file()


def test_import_does_not_load_matplotlib() -> None:
    code = (
        "import sys, posenc, posenc.plot; "
        "posenc.sinusoidal(4, 4); posenc.rope([[1.0, 0.0]]); "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    src = str(Path(posenc.__file__).resolve().parents[1])  # make this posenc importable
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
