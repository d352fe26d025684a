"""The HTML of a cell's inputs: a fieldset of real form controls, and the pre-rendered combinations.

Each input is an ``<input type="range">``, a ``<select>`` or an ``<input type="checkbox">`` with
its ``<label>``, in a ``<fieldset>`` whose legend is the author's (the fence's ``label``, else the
nearest heading above the cell); a slider also has an ``<output>`` that shows its value as text (a
select and a checkbox show theirs themselves). The build writes them ``disabled`` at their
defaults: without JavaScript they show what the cell's output was made with;
``assets/js/inputs.js`` enables them. Every combination the build pre-rendered is a
``<template data-combination="…">`` holding that output in the form of the cell's own
(`cells.output_parts`), so the page can show it before Python is ready.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .dom import INPUTS
from .inputs import Input, default_key, key_text
from .markup import Raw, tag, void
from .strings import s


def inputs_attrs(inputs: tuple[Input, ...]) -> dict[str, str]:
    """The cell region's attributes for its inputs: their names, and their specs as JSON."""
    if not inputs:
        return {}
    return {
        INPUTS["names"]: " ".join(i.name for i in inputs),
        INPUTS["spec"]: json.dumps([i.spec() for i in inputs], separators=(",", ":")),
        INPUTS["default"]: key_text(default_key(inputs)),
    }


def render_inputs(
    inputs: tuple[Input, ...],
    cell_id: str,
    legend: str,
    variants: dict[str, list[Raw]],
) -> Raw | None:
    """The fieldset of ``inputs`` (None without), and a template per pre-rendered combination.

    ``variants`` maps a combination (`inputs.key_text`) to its output's parts.
    """
    if not inputs:
        return None
    controls = [_control(item, f"{cell_id}-input-{item.name}") for item in inputs]
    templates = [
        tag("template", {"class": INPUTS["variant"], INPUTS["combination"]: key}, *parts)
        for key, parts in variants.items()
    ]
    return tag(
        "fieldset",
        {"class": INPUTS["root"], "disabled": True},
        tag("legend", {}, legend),
        *controls,
        tag("p", {"class": INPUTS["announce"], "role": "status"}),
        *templates,
    )


def _control(item: Input, control_id: str) -> Raw:
    """One input: its label, its control at the default, and a slider's value as text."""
    label = tag("label", {"for": control_id}, item.label or item.name)
    control = _CONTROLS[item.kind](item, {"id": control_id, "name": item.name, INPUTS["input"]: item.name})
    shown = _shown(item, item.default)
    output = None
    if item.kind == "slider":
        output = tag("output", {"for": control_id, "class": INPUTS["value"], "aria-live": "off"}, shown)
    return tag("div", {"class": f"{INPUTS['item']} {INPUTS['item']}--{item.kind}"}, label, control, output)


def _shown(item: Input, position: int) -> str:
    """A value as the page shows it next to its input."""
    value = item.values[position]
    if item.kind == "checkbox":
        return s("inputs.on" if value else "inputs.off")
    return str(value)


def _slider(item: Input, attrs: dict) -> Raw:
    slider = item.slider
    value = item.values[item.default]
    return void(
        "input",
        {**attrs, "type": "range", "min": slider["min"], "max": slider["max"], "step": slider["step"], "value": value},
    )


def _select(item: Input, attrs: dict) -> Raw:
    options = [
        tag("option", {"value": k, "selected": k == item.default}, str(choice)) for k, choice in enumerate(item.values)
    ]
    return tag("select", attrs, *options)


def _checkbox(item: Input, attrs: dict) -> Raw:
    return void("input", {**attrs, "type": "checkbox", "checked": bool(item.default)})


_CONTROLS: dict[str, Callable[[Input, dict], Raw]] = {"slider": _slider, "select": _select, "checkbox": _checkbox}
