"""Sweep axes: ``PATH=LO:HI:N[:log]`` and ``PATH=V1,V2,...`` grids, ranges for a Latin-hypercube sample,
values in the parameter's display unit (degrees for a lock, converted exactly as math.radians does)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from physics import CarParams, ParamError, ParamInfo
from physics.toml_text import underflows
from physics.units import DISPLAY_UNITS, display_of
from workbench.scripts.format import exact_digits
from workbench.scripts.limits import DECIMAL

MAX_VALUES = 100_000  # values on one axis
_TO_SI = {unit: back for unit, (_, _, back) in DISPLAY_UNITS.items()}  # what math.radians multiplies by


class SweepError(ValueError):
    """A sweep that cannot run; the message names the option, the value or the combination and the reason."""


@dataclass(frozen=True)
class Axis:
    """One swept parameter: its path, unit shown, the factor from SI to that unit, and its values (shown units)."""

    path: str
    unit: str
    factor: float
    values: np.ndarray  # grid values, or for a sample the (lo, hi) range
    log: bool = False
    spec: str = ""

    @property
    def to_si(self) -> float:
        """The factor from a shown value to SI (degrees to radians as math.radians does it)."""
        return _si_factor(self.unit, self.factor)

    @property
    def label(self) -> str:
        return f"{self.path} [{self.unit}]" if self.unit else self.path


def _si_factor(unit: str, factor: float) -> float:
    """The factor from a value shown in ``unit`` (``factor`` from SI, physics.units) back to SI."""
    return _TO_SI.get(unit, 1.0) if factor != 1.0 else 1.0


def display(info: ParamInfo) -> tuple[str, float]:
    """The unit a parameter is shown in and the factor from its SI value (physics.units)."""
    return display_of(info)


def whole_numbered(params: CarParams, path: str) -> bool:
    """Whether the parameter at ``path`` takes whole numbers only (stability control on or off, a count): its cars are
    charted as points, with nothing between them."""
    try:
        return params.info(path).kind is int
    except (KeyError, ValueError, AttributeError):
        return False


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SweepError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise SweepError(f"{where}: {text!r} is not a finite number")
    if not DECIMAL.fullmatch(text.strip()):  # float() reads "\u0661" and "1_000" too
        raise SweepError(f"{where}: {text!r} is not a number (ASCII digits, a point and an exponent, as 0.005 or 5e-3)")
    if underflows(text, value):  # Python reads 1e-999 as 0, which the user never wrote
        raise SweepError(f"{where}: {text!r} is beyond a floating-point number's range")
    return value


def parse_axis(spec: str, params: CarParams, sample: bool = False) -> Axis:
    """``PATH=LO:HI:N``, ``PATH=LO:HI:N:log`` or ``PATH=V1,V2,...``; with ``sample``, ``PATH=LO:HI[:log]``."""
    where = f"--param {spec}"
    path, sep, values_text = spec.partition("=")
    path = path.strip()
    if not sep or not path or not values_text.strip():
        raise SweepError(f"{where}: expected PATH=LO:HI:N, PATH=LO:HI:N:log or PATH=V1,V2,...")
    try:
        info = params.info(path)
    except ParamError as exc:
        raise SweepError(f"{where}: {exc}") from None
    if info.kind not in (float, int) or info.choices:
        raise SweepError(f"{where}: {path} is not a number and cannot be swept")
    unit, factor = display(info)
    parts = [p.strip() for p in values_text.split(":")]
    log = len(parts) in (3, 4) and parts[-1] == "log"
    if log:
        parts = parts[:-1]
    if sample:
        if len(parts) != 2:
            raise SweepError(f"{where}: with --samples give a range PATH=LO:HI or PATH=LO:HI:log")
        lo, hi = (_number(p, where) for p in parts)
        if not lo < hi:
            raise SweepError(f"{where}: HI ({exact_digits(hi)}) must be above LO ({exact_digits(lo)})")
        values = np.array([lo, hi])
    elif len(parts) == 1:
        values = np.array([_number(p, where) for p in parts[0].split(",")])
        if log:
            raise SweepError(f"{where}: log needs a range LO:HI:N:log")
    elif len(parts) == 3:
        lo, hi = _number(parts[0], where), _number(parts[1], where)
        if not parts[2].isascii() or not parts[2].isdigit():  # int() reads "\u0663" and "1_0" too
            raise SweepError(f"{where}: N = {parts[2]!r} must be a whole number of values (ASCII digits)")
        digits = parts[2].lstrip("0") or "0"
        n = int(digits) if len(digits) <= 18 else MAX_VALUES + 1  # (Python reads no int of 4,301 digits)
        if not 2 <= n <= MAX_VALUES:
            shown = f"{n}" if len(digits) <= 18 else f"a number of {len(digits):,} digits"
            raise SweepError(f"{where}: N = {shown} must be between 2 and {MAX_VALUES} (one value: PATH=V)")
        if not lo < hi:
            raise SweepError(f"{where}: HI ({exact_digits(hi)}) must be above LO ({exact_digits(lo)})")
        if log and lo <= 0:
            raise SweepError(f"{where}: a log axis needs LO > 0, got {exact_digits(lo)}")
        values = np.geomspace(lo, hi, n) if log else np.linspace(lo, hi, n)
        # To 15 digits, which a float64 holds: 5:80:5:log's 20 came out 20.000000000000004 (and 40 as 39.99999999999999)
        # in the CSV, a value nobody typed or meant; what a car is given moves by 1e-15 of itself at most. And a zero
        # the spacing passes through is zero: -1:0.2:7 gave -1.1e-16, and the car ran with it.
        values = np.array([float(f"{v:.15g}") for v in values])
        if not log:  # (a log axis holds no zero: its small values are its own)
            values[np.abs(values) <= 1e-12 * max(abs(lo), abs(hi))] = 0.0
        values[0], values[-1] = lo, hi  # exactly the ends typed (geomspace can miss by an ulp)
    else:
        raise SweepError(f"{where}: expected PATH=LO:HI:N, PATH=LO:HI:N:log or PATH=V1,V2,...")
    if sample and log and values[0] <= 0:
        raise SweepError(f"{where}: a log range needs LO > 0, got {exact_digits(float(values[0]))}")
    if len(values) > MAX_VALUES:
        raise SweepError(f"{where}: {len(values)} values; at most {MAX_VALUES} on one axis")
    to_si = _si_factor(unit, factor)
    for v in values:
        # the value as typed, in as few digits as tell it from the limit (80.000001 deg read "80 deg is out of range;
        # allowed: 0 < value <= 80 deg")
        _check_value(info, float(v) * to_si, f"{where}: {path} = {exact_digits(float(v))}{' ' + unit if unit else ''}",
                     unit, factor)
    if not sample:
        _check_each_once(values, unit, factor, where, parts[0].split(",") if len(parts) == 1 else None)
    return Axis(path, unit, factor, values, log, spec)


def _check_each_once(values: np.ndarray, unit: str, factor: float, where: str, typed: list[str] | None) -> None:
    """SweepError where an axis holds a value twice (``body.mass=1,1``, ``1,1.0``, or more values between LO and HI
    than there are floats): the same car would run twice and its row show twice in sweep.csv, without a word. A typo
    more likely than a wish; the values are compared in SI, as the cars get them."""
    to_si = _si_factor(unit, factor)
    si = [float(v) * to_si for v in values]
    first: dict[float, int] = {}
    for i, v in enumerate(si):
        j = first.setdefault(v, i)
        if j == i:
            continue
        if typed is None:
            shown = f" {unit}" if unit else ""
            raise SweepError(f"{where}: N = {len(values)} values from {float(values[0])!r} to {float(values[-1])!r}"
                             f"{shown} are not all different as the cars get them (as floats"
                             f"{', in SI' if to_si != 1.0 else ''}); give fewer values or a wider range "
                             "(the same car would run twice)")
        a, b = typed[j].strip(), typed[i].strip()
        again = f"the value {b} is given twice" if a == b else f"{b} is the value {a} again"
        raise SweepError(f"{where}: {again}; give each value once (the same car would run twice)")


def _check_value(info: ParamInfo, si: float, where: str, unit: str, factor: float) -> None:
    problem = range_problem(info, si)
    if problem:
        raise SweepError(f"{where} {problem}")


def range_problem(info: ParamInfo, si: float) -> str | None:
    """Why the SI value ``si`` is refused for ``info``, its allowed range in the display unit; None when it is not."""
    if info.kind is int and math.isfinite(si) and si != int(si):
        return "is not a whole number"
    try:
        info.check(si)
    except ParamError:
        unit, factor = display(info)
        shown = dataclasses.replace(info, lo=None if info.lo is None else info.lo * factor,
                                    hi=None if info.hi is None else info.hi * factor)
        return f"is out of range; allowed: {shown.allowed(unit)}"
    return None


def latin_hypercube(n: int, dims: int, seed: int) -> np.ndarray:
    """(n, dims) points in [0, 1): each column has exactly one point in each of the n strata [i/n, (i+1)/n)."""
    rng = np.random.default_rng(seed)
    u = np.empty((n, dims))
    for d in range(dims):
        u[:, d] = (rng.permutation(n) + rng.random(n)) / n
    return u
