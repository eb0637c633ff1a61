"""Field declarations for the parameter dataclasses, and the generic code that walks them.

A parameter is a dataclass field declared with :func:`param`; its metadata carries the unit, a
one-line description, the allowed range and the slider span. Everything that reads or writes
parameters (the preset loader, the writer, the parameter panel, the batch stacker) walks these
fields, so the dataclasses are the one schema.
"""

from __future__ import annotations

import functools
import math
import typing
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

LENGTH_UNITS = ("m", "px")

# How an SI unit reads when the preset's unit of length is pixels (mass stays in kg).
_PX_UNITS = {
    "m": "px",
    "m/s": "px/s",
    "m/s^2": "px/s^2",
    "km/h": "km/h",
    "N": "kg px/s^2",
    "N m": "kg px^2/s^2",
    "W": "kg px^2/s^3",
    "kg m^2": "kg px^2",
    "N s/m": "kg/s",
    "N s^2/m^2": "kg/px",
    "1/m": "1/px",
    "m^2": "px^2",
    "kg/m^3": "kg/px^3",
}


def unit_in(unit: str, length_unit: str) -> str:
    """The unit string as it reads in a preset whose unit of length is ``length_unit``."""
    if length_unit == "m":
        return unit
    return _PX_UNITS.get(unit, unit)


def param(
    default: Any = MISSING,
    *,
    unit: str = "",
    doc: str,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    span: tuple[float, float] | None = None,
    choices: tuple[str, ...] | None = None,
    display: str | None = None,
) -> Any:
    """Declare a parameter field.

    ``lo``/``hi`` bound the allowed values (open bounds exclude the end point), ``span`` is the
    slider range the panel offers (the spin box accepts the whole allowed range), ``choices``
    lists the allowed strings, and ``display`` names the unit the panel shows ("deg" for a field
    stored in radians).
    """
    meta = dict(
        unit=unit, doc=doc, lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open,
        span=span, choices=choices, display=display,
    )
    if isinstance(default, list):
        frozen = tuple(default)
        return field(default_factory=lambda: list(frozen), metadata=meta)
    return field(default=default, metadata=meta)


class ParamError(ValueError):
    """A parameter value, key or file that cannot be accepted; the message says where and why."""


@dataclass(frozen=True)
class ParamInfo:
    """One leaf parameter: its dotted path and what the schema says about it."""

    path: str
    kind: type
    unit: str
    doc: str
    lo: float | None
    hi: float | None
    lo_open: bool
    hi_open: bool
    span: tuple[float, float] | None
    choices: tuple[str, ...] | None
    display: str | None
    required: bool

    def allowed(self, unit: str | None = None) -> str:
        """The allowed range in words, e.g. ``0 < x <= 1.5 rad``."""
        unit = self.unit if unit is None else unit
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind is str:
            return "a string"
        if self.lo is not None and self.hi is not None:
            text = (f"{_fmt(self.lo)} {'<' if self.lo_open else '<='} value "
                    f"{'<' if self.hi_open else '<='} {_fmt(self.hi)}")
        elif self.lo is not None:
            text = f"value {'>' if self.lo_open else '>='} {_fmt(self.lo)}"
        elif self.hi is not None:
            text = f"value {'<' if self.hi_open else '<='} {_fmt(self.hi)}"
        else:
            text = "any number"
        if self.kind is list:
            text = "a non-empty list of numbers, each " + text
        return f"{text} {unit}".rstrip()

    def check(self, value: Any) -> Any:
        """Return ``value`` converted to the field's type, or raise ParamError with the reason."""
        if self.kind is str:
            if not isinstance(value, str):
                raise ParamError(f"expected a string, got {type(value).__name__}; allowed: {self.allowed()}")
            if self.choices and value not in self.choices:
                raise ParamError(f"{value!r} is not allowed; allowed: {self.allowed()}")
            return value
        if self.kind is list:
            if not isinstance(value, (list, tuple)) or not value:
                raise ParamError(f"expected a non-empty list of numbers; allowed: {self.allowed()}")
            return [self._check_number(v) for v in value]
        return self._check_number(value)

    def _check_number(self, value: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParamError(f"expected a number, got {type(value).__name__} {value!r}; allowed: {self.allowed()}")
        try:
            number = float(value)
        except OverflowError:  # a TOML integer beyond any float
            raise ParamError(f"{str(value)[:20]}... is not a finite number; allowed: {self.allowed()}") from None
        if not math.isfinite(number):
            raise ParamError(f"{value!r} is not a finite number; allowed: {self.allowed()}")
        low_bad = self.lo is not None and (number <= self.lo if self.lo_open else number < self.lo)
        high_bad = self.hi is not None and (number >= self.hi if self.hi_open else number > self.hi)
        if low_bad or high_bad:
            raise ParamError(f"{_refused(number, (self.lo, self.hi))} is out of range; allowed: {self.allowed()}")
        if self.kind is int:
            if number != int(number):
                raise ParamError(f"expected a whole number, got {value!r}")
            return int(number)
        return number


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _refused(x: float, bounds: tuple[float | None, ...]) -> str:
    """A refused number in six digits where that tells it from its limits, else in as many as do (100000001 against
    1e+08 was written "1e+08 is out of range; allowed: ... <= 1e+08")."""
    short = _fmt(x)
    if all(b is None or short != _fmt(b) for b in bounds):  # as the limits are written (allowed())
        return short
    return repr(float(x))


def _leaf_kind(annotation: Any) -> type:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    if text.startswith("list"):
        return list
    return {"float": float, "int": int, "str": str}[text]


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """``cls``'s type hints, read once: typing.get_type_hints compiles every annotation each time, 70% of the time a
    script with 2,000 parameter changes took to compile (14 s)."""
    return typing.get_type_hints(cls)


def group_class(cls: type, name: str) -> type:
    """The dataclass type of group ``name`` of ``cls`` (unwrapping ``X | None``)."""
    hint = _hints(cls)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if args else hint


def group_is_optional(cls: type, name: str) -> bool:
    hint = _hints(cls)[name]
    return type(None) in typing.get_args(hint)


def leaves(group_cls: type, prefix: str) -> list[ParamInfo]:
    """Describe every parameter of one group dataclass."""
    return list(_leaves(group_cls, prefix))


@functools.cache
def _leaves(group_cls: type, prefix: str) -> tuple[ParamInfo, ...]:
    out = []
    for f in fields(group_cls):
        m = f.metadata
        out.append(
            ParamInfo(
                path=f"{prefix}.{f.name}",
                kind=_leaf_kind(f.type),
                unit=m.get("unit", ""),
                doc=m.get("doc", ""),
                lo=m.get("lo"),
                hi=m.get("hi"),
                lo_open=m.get("lo_open", False),
                hi_open=m.get("hi_open", False),
                span=m.get("span"),
                choices=m.get("choices"),
                display=m.get("display"),
                required=f.default is MISSING and f.default_factory is MISSING,
            )
        )
    return tuple(out)


def quantity(group: Any, name: str, length_unit: str = "m", value: float | None = None) -> str:
    """A field's value (``value`` instead where given) with its unit as the preset writes it: ``2.85 m``, ``7400
    rpm``, ``2.85 px`` where the preset's unit of length is the pixel."""
    unit = unit_in(next(f for f in fields(group) if f.name == name).metadata.get("unit", ""), length_unit)
    return f"{getattr(group, name) if value is None else value:g} {unit}".rstrip()


def build_group(group_cls: type, prefix: str, table: Any, length_unit: str = "m") -> Any:
    """Build one group dataclass from a TOML table, strictly: unknown or missing keys are errors.

    Raises ParamError whose message starts with the dotted key at fault. ``length_unit``: the preset's unit of
    length, which the values in the group's own checks are written in.
    """
    if not isinstance(table, dict):
        raise ParamError(f"[{prefix}]: expected a table of values, got {type(table).__name__}")
    infos = {info.path.rsplit(".", 1)[1]: info for info in leaves(group_cls, prefix)}
    unknown = [k for k in table if k not in infos]
    if unknown:
        raise ParamError(
            f"{prefix}.{unknown[0]}: unknown key; the keys of [{prefix}] are: {', '.join(infos)}"
        )
    values = {}
    for name, info in infos.items():
        if name not in table:
            if info.required:
                raise ParamError(f"{info.path}: missing; allowed: {info.allowed()}")
            continue
        try:
            values[name] = info.check(table[name])
        except ParamError as exc:
            raise ParamError(f"{info.path} = {table[name]!r}: {exc}") from None
    group = group_cls(**values)
    check = getattr(group, "check", None)
    if check is not None:
        problem = check(length_unit)
        if problem:
            raise ParamError(f"{prefix}.{problem}")  # the check names its key first: "lr = 3: ..."
    return group


def group_table(group: Any) -> dict[str, Any]:
    """The TOML table of one group: every field, values only."""
    return {f.name: (list(v) if isinstance(v := getattr(group, f.name), (list, tuple)) else v) for f in fields(group)}
