"""benchmarks/wasm_tiers.py's reading of a wasm module's exports and of V8's compile log, without a browser."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture
def wasm_tiers(benchmarks_importable: None) -> ModuleType:
    """The tool, imported as its own directory's script would be."""
    import wasm_tiers

    return wasm_tiers


def leb128(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def section(section_id: int, payload: bytes) -> bytes:
    return bytes([section_id]) + leb128(len(payload)) + payload


def export(name: str, kind: int, index: int) -> bytes:
    return leb128(len(name)) + name.encode() + bytes([kind]) + leb128(index)


def test_export_names_maps_function_indices_past_other_sections(wasm_tiers: ModuleType) -> None:
    # A custom section first (as dylink.0 in pyodide.asm.wasm), then exports: two functions
    # (one index needing two LEB128 bytes), a memory and a second name for the same function.
    custom = section(0, leb128(9) + b"dylink.0x" + b"\x00" * 3)
    exports = [
        export("_PyEval_EvalFrameDefault", 0, 3434),
        export("memory", 2, 0),
        export("f", 0, 5),
        export("alias", 0, 5),
    ]
    wasm = b"\x00asm\x01\x00\x00\x00" + custom + section(7, leb128(len(exports)) + b"".join(exports))
    assert wasm_tiers.export_names(wasm) == {3434: "_PyEval_EvalFrameDefault", 5: "f"}


def test_export_names_of_a_module_without_exports_is_empty(wasm_tiers: ModuleType) -> None:
    assert wasm_tiers.export_names(b"\x00asm\x01\x00\x00\x00" + section(1, b"\x00")) == {}


def test_the_compile_log_is_split_by_browser_process_with_times_in_ms(wasm_tiers: ModuleType) -> None:
    line = "2026-12-01T12:53:09.139Z pw:browser [pid={}][{}] {}"
    log = "\n".join(
        [
            line.format(21, "out", "Compiled function 0xa1#302 using Liftoff, took 152 μs and 13168 bytes"),
            line.format(21, "out", "Compiled function 0xa1#3434 using TurboFan, took 153730 μs and 19 / 43 bytes"),
            line.format(21, "err", "some other line"),
            line.format(35, "out", "Compiled function 0xb7#3434 using TurboFan, took 251 ms and 18 / 42 bytes"),
        ]
    )
    by_pid = wasm_tiers.compiles_by_process(log)
    assert list(by_pid) == ["21", "35"]
    assert by_pid["21"] == [("0xa1", 302, "Liftoff", 0.152), ("0xa1", 3434, "TurboFan", 153.73)]
    assert by_pid["35"] == [("0xb7", 3434, "TurboFan", 251.0)]


def test_report_names_the_costliest_turbofan_functions_of_the_busiest_module(
    wasm_tiers: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    compiles = [
        ("0xa1", 3434, "TurboFan", 150.0),
        ("0xa1", 3434, "Liftoff", 3.0),
        ("0xa1", 3434, "TurboFan", 250.0),
        ("0xa1", 7, "TurboFan", 20.0),
        ("0xc3", 1, "TurboFan", 999.0),  # a side module (numpy's): counted in the totals only
    ]
    seen = wasm_tiers.Visit(1234.0, ["course: Python restored from this browser's snapshot"], compiles)
    wasm_tiers.report(1, [seen], {3434: "_PyEval_EvalFrameDefault"})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("round 1 visit 1: cell 1 in 1234 ms (course: Python restored")
    assert "TurboFan 1419 ms, Liftoff 3 ms" in lines[0]
    assert lines[1:] == ["    _PyEval_EvalFrameDefault: TurboFan x2, 400 ms", "    function 7: TurboFan x1, 20 ms"]
