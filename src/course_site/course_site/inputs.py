"""A cell's inputs: the ``# --- inputs ---`` section of a ``pyodide`` fence (builder-neutral).

One input per line, written as a Python call that is parsed with `ast`, never evaluated::

    pos = slider(0, 63, value=10, step=1, label="position pos")
    method = select(["linear", "ntk", "yarn", "llama3"], value="yarn", label="rescaling")
    show_cos = checkbox(True, label="show the cosine columns")

Each input has a finite list of values (a slider's from ``min`` to ``max`` by ``step``), so a
value is named by its position in that list; a combination of the cell's inputs is the tuple of
those positions (`Input.key`). Before the cell's code runs, the names are bound by a few lines
of Python (`bindings`): an int or a float for a slider (a float when any of its numbers is one),
the chosen item for a select, a bool for a checkbox. ``assets/js/inputs.js`` writes the same
lines in the browser from the specs the build puts in the page (`Input.spec`).
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import product

from .errors import LessonError

KINDS = ("slider", "select", "checkbox")
PRECOMPUTE_DEFAULT = 16
"""Combinations of a cell's inputs that the build pre-renders, unless its ``precompute=N`` option says."""
_ARGUMENTS = {
    "slider": (("min", "max"), ("value", "step", "label")),
    "select": (("choices",), ("value", "label")),
    "checkbox": (("value",), ("label",)),
}


@dataclass(frozen=True)
class Input:
    """One input of a cell: its name, kind, the list of its values, the default's position, its label."""

    name: str
    kind: str
    values: tuple = ()
    default: int = 0
    label: str = ""
    line: int = 0
    slider: dict = field(default_factory=dict)  # a slider's min, max, step (as written) and decimals

    @property
    def count(self) -> int:
        return len(self.values)

    def python(self, position: int) -> str:
        """The Python literal of value number ``position`` (a float keeps its ``.0``)."""
        return repr(self.values[position])

    def spec(self) -> dict:
        """What ``inputs.js`` needs: the same values, labels and default, as JSON."""
        spec = {"name": self.name, "kind": self.kind, "label": self.label, "default": self.default}
        if self.kind == "slider":
            spec.update(self.slider)
        elif self.kind == "select":
            spec["choices"] = [str(v) for v in self.values]
            spec["python"] = [repr(v) for v in self.values]
        return spec


def parse_inputs(text: str, path: str, first_line: int) -> tuple[Input, ...]:
    """The inputs of an ``inputs`` section whose first line is Markdown line ``first_line``.

    Raises `LessonError` at the offending line: not an assignment of a call, an unknown kind,
    a name that is not an identifier or repeats, a non-literal argument, a default outside the
    range or not among the choices, a step that does not divide the range.
    """
    inputs: list[Input] = []
    for k, line in enumerate(text.split("\n")):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = first_line + k
        item = _parse_line(line.strip(), path, where)
        if item.name in {i.name for i in inputs}:
            raise LessonError(path, where, f"the input {item.name!r} is defined twice in this cell")
        inputs.append(item)
    return tuple(inputs)


def combinations(inputs: tuple[Input, ...]) -> int:
    """How many combinations of values the inputs have."""
    return math.prod(i.count for i in inputs) if inputs else 0


def default_key(inputs: tuple[Input, ...]) -> tuple[int, ...]:
    return tuple(i.default for i in inputs)


def precomputed_keys(inputs: tuple[Input, ...], limit: int) -> list[tuple[int, ...]]:
    """The combinations the build pre-renders: all of them up to ``limit``, else none.

    (The defaults' output is the cell's own output either way.)
    """
    if not inputs or combinations(inputs) > limit:
        return []
    return list(product(*(range(i.count) for i in inputs)))


def bindings(inputs: tuple[Input, ...], key: tuple[int, ...]) -> str:
    """The Python lines that bind each input's name to its value in combination ``key``."""
    return "".join(f"{i.name} = {i.python(p)}\n" for i, p in zip(inputs, key, strict=True))


def key_text(key: tuple[int, ...]) -> str:
    """A combination as the page names it (``data-combination``): positions joined by commas."""
    return ",".join(map(str, key))


def describe(inputs: tuple[Input, ...], key: tuple[int, ...]) -> str:
    """``pos=3, method='ntk'``: a combination as an error message names it."""
    return ", ".join(f"{i.name}={i.python(p)}" for i, p in zip(inputs, key, strict=True))


def _parse_line(line: str, path: str, where: int) -> Input:
    name = re.match(r"^([^=(]*?)\s*=(?!=)", line)
    if name and not _is_identifier(name[1]) and re.fullmatch(r"[^\s,()\[\]]+", name[1]):
        raise LessonError(path, where, f"the input's name {name[1]!r} is not a Python identifier")
    try:
        tree = ast.parse(line, mode="exec")
    except SyntaxError as error:
        raise LessonError(path, where, f"cannot read this input as Python: {error.msg}") from None
    statement = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        raise LessonError(path, where, _FORMAT)
    target, call = statement.targets[0], statement.value
    if not isinstance(target, ast.Name):
        raise LessonError(path, where, f"the input's name {ast.unparse(target)!r} is not a Python identifier")
    name = target.id
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise LessonError(path, where, _FORMAT)
    kind = call.func.id
    if kind not in KINDS:
        raise LessonError(path, where, f"unknown kind of input {kind!r} (valid: {', '.join(KINDS)})")
    arguments = _arguments(call, kind, path, where)
    return _BUILDERS[kind](name, arguments, path, where)


def _is_identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


_FORMAT = 'an input is one line `name = kind(arguments)`, e.g. `pos = slider(0, 63, value=10, label="position")`'


def _arguments(call: ast.Call, kind: str, path: str, where: int) -> dict:
    """The call's arguments by name, each a literal; raises at a non-literal, a missing or an unknown one."""
    positional, optional = _ARGUMENTS[kind]
    names = positional + optional
    if len(call.args) > len(names):
        raise LessonError(path, where, f"{kind}() takes at most {len(names)} arguments ({', '.join(names)})")
    pairs = list(zip(names, call.args, strict=False))
    for keyword_argument in call.keywords:
        if keyword_argument.arg not in names:
            raise LessonError(
                path, where, f"{kind}() has no argument {keyword_argument.arg!r} (valid: {', '.join(names)})"
            )
        pairs.append((keyword_argument.arg, keyword_argument.value))
    arguments = {}
    for name, node in pairs:
        if name in arguments:
            raise LessonError(path, where, f"{kind}() got the argument {name!r} twice")
        try:
            arguments[name] = ast.literal_eval(node)
        except ValueError:
            raise LessonError(
                path,
                where,
                f"the argument {name}={ast.unparse(node)} of {kind}() is not a literal "
                "(a number, a string, a list, True or False)",
            ) from None
    missing = [name for name in positional if name not in arguments]
    if missing:
        raise LessonError(path, where, f"{kind}() needs the argument {missing[0]!r}")
    label = arguments.get("label", "")
    if not isinstance(label, str):
        raise LessonError(path, where, f"the label of {kind}() must be a string, not {label!r}")
    return arguments


def _number(value: object, what: str, path: str, where: int) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LessonError(path, where, f"the slider's {what} must be a number, not {value!r}")
    return value


def _slider(name: str, arguments: dict, path: str, where: int) -> Input:
    low, high = (_number(arguments[k], k, path, where) for k in ("min", "max"))
    step = _number(arguments.get("step", 1), "step", path, where)
    value = _number(arguments.get("value", low), "value", path, where)
    if not low < high:
        raise LessonError(path, where, f"the slider's min {low!r} must be less than its max {high!r}")
    if step <= 0:
        raise LessonError(path, where, f"the slider's step {step!r} must be positive")
    exact = [Decimal(repr(x)) for x in (low, high, step, value)]
    d_low, d_high, d_step, d_value = exact
    steps = (d_high - d_low) / d_step
    if steps != steps.to_integral_value():
        raise LessonError(
            path, where, f"the slider's step {step!r} does not divide its range {low!r} to {high!r} into whole steps"
        )
    if not d_low <= d_value <= d_high:
        raise LessonError(path, where, f"the slider's value {value!r} is outside its range {low!r} to {high!r}")
    position = (d_value - d_low) / d_step
    if position != position.to_integral_value():
        raise LessonError(
            path, where, f"the slider's value {value!r} is not one of its steps ({low!r}, {low + step!r}, …)"
        )
    is_float = any(isinstance(x, float) for x in (low, high, step, value))
    decimals = max(-min(x.as_tuple().exponent, 0) for x in exact) if is_float else 0
    scale = 10**decimals
    ints = {k: int(x * scale) for k, x in zip(("min", "step"), (d_low, d_step), strict=True)}
    count = int(steps) + 1
    values = tuple((ints["min"] + k * ints["step"]) / scale if is_float else low + k * step for k in range(count))
    slider = {
        "min": low,
        "max": high,
        "step": step,
        "float": is_float,
        "scale": scale,
        "imin": ints["min"],
        "istep": ints["step"],
    }
    return Input(name, "slider", values, int(position), arguments.get("label", ""), where, slider)


def _select(name: str, arguments: dict, path: str, where: int) -> Input:
    choices = arguments["choices"]
    if not isinstance(choices, list | tuple) or len(choices) < 2:
        raise LessonError(path, where, f"select() needs a list of at least two choices, not {choices!r}")
    for choice in choices:
        if not isinstance(choice, str | int | float | bool):
            raise LessonError(path, where, f"a choice of select() must be a string, a number or a bool, not {choice!r}")
    if len({repr(c) for c in choices}) < len(choices):
        raise LessonError(path, where, "the choices of select() repeat")
    value = arguments.get("value", choices[0])
    matches = [k for k, c in enumerate(choices) if type(c) is type(value) and c == value]
    if not matches:
        raise LessonError(path, where, f"the select's value {value!r} is not among its choices {list(choices)!r}")
    return Input(name, "select", tuple(choices), matches[0], arguments.get("label", ""), where)


def _checkbox(name: str, arguments: dict, path: str, where: int) -> Input:
    value = arguments["value"]
    if not isinstance(value, bool):
        raise LessonError(path, where, f"the checkbox's value must be True or False, not {value!r}")
    return Input(name, "checkbox", (False, True), int(value), arguments.get("label", ""), where)


_BUILDERS = {"slider": _slider, "select": _select, "checkbox": _checkbox}
