"""physics.approx: each approximation against Python's math over its whole input range, its special values, and the
same bits whether called one value at a time or in a loop the compiler vectorises across many."""

from __future__ import annotations

import math
import re

import numba
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from physics import approx

# The module's error bounds (against correctly rounded results) plus one ulp for math's own rounding.
BOUND_ULP = {"atan": 2.0, "atan2": 3.0, "sin": 2.5, "cos": 2.5, "tan": 4.0, "exp": 2.5, "log": 2.0, "hypot": 2.0}
TRIG_RANGE = 2.0 ** 26
SAMPLES = 20_000

rng = np.random.default_rng(20261203)


def _log_uniform(n, lo, hi, signed=True):
    x = np.exp(rng.uniform(math.log(lo), math.log(hi), n))
    return x * rng.choice([-1.0, 1.0], n) if signed else x


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of the last place of ``want`` (of the smallest normal double at and below it)."""
    scale = np.array([math.ulp(max(abs(w), 2.2250738585072014e-308)) for w in want])
    return np.abs(got - want) / scale


def _lanes(name: str, two: bool):
    f = getattr(approx, name)
    if two:
        @numba.njit(error_model="numpy")
        def loop(a, b, out):
            for i in range(a.size):
                out[i] = f(a[i], b[i])
    else:
        @numba.njit(error_model="numpy")
        def loop(a, b, out):
            for i in range(a.size):
                out[i] = f(a[i])
    return loop


def _over(name: str, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    out = np.empty_like(a)
    _lanes(name, b is not None)(a, a if b is None else b, out)
    return out


RANGES = {
    "atan": lambda: np.concatenate([_log_uniform(SAMPLES, 1e-308, 1e308), rng.uniform(-4.0, 4.0, SAMPLES)]),
    "sin": lambda: np.concatenate([_log_uniform(SAMPLES, 1e-308, TRIG_RANGE), rng.uniform(-8.0, 8.0, SAMPLES)]),
    "cos": lambda: np.concatenate([_log_uniform(SAMPLES, 1e-308, TRIG_RANGE), rng.uniform(-8.0, 8.0, SAMPLES)]),
    "tan": lambda: np.concatenate([_log_uniform(SAMPLES, 1e-308, TRIG_RANGE), rng.uniform(-1.5707, 1.5707, SAMPLES)]),
    "exp": lambda: np.concatenate([rng.uniform(-708.3, 709.78, SAMPLES), rng.uniform(-2.0, 2.0, SAMPLES)]),
    "log": lambda: np.concatenate([_log_uniform(SAMPLES, 2.3e-308, 1.7e308, signed=False),
                                   rng.uniform(0.5, 2.0, SAMPLES)]),
}


@pytest.mark.parametrize("name", sorted(RANGES))
def test_one_argument_functions_match_math_over_their_whole_range(name):
    x = RANGES[name]()
    got = _over(name, x)
    want = np.array([getattr(math, name)(v) for v in x])
    err = _ulps(got, want)
    worst = int(np.argmax(err))
    assert err[worst] <= BOUND_ULP[name], f"{name}({x[worst]!r}) = {got[worst]!r}, math: {want[worst]!r}"


def test_atan2_matches_math_over_pairs_of_every_size_and_sign():
    y = np.concatenate([_log_uniform(SAMPLES, 1e-300, 1e300), rng.uniform(-3.0, 3.0, SAMPLES)])
    x = np.concatenate([_log_uniform(SAMPLES, 1e-300, 1e300), rng.uniform(-3.0, 3.0, SAMPLES)])
    got = _over("atan2", y, x)
    want = np.array([math.atan2(a, b) for a, b in zip(y, x, strict=True)])
    assert np.max(_ulps(got, want)) <= BOUND_ULP["atan2"]


def test_hypot_matches_math_over_every_finite_double():
    """Subnormal to the largest double, and pairs far apart in size (a car creeping to rest with the stop rule off
    reached speeds of 1e-161, whose squares were 0: hypot gave 0 and a division by it nan)."""
    x = np.concatenate([_log_uniform(SAMPLES, 5e-324, 1.7e308), _log_uniform(SAMPLES, 1e-200, 1e-140)])
    y = np.concatenate([_log_uniform(SAMPLES, 5e-324, 1.7e308), _log_uniform(SAMPLES, 1e-200, 1e-140)])
    got = _over("hypot", x, y)
    want = np.array([math.hypot(a, b) for a, b in zip(x, y, strict=True)])
    assert np.all(got > 0.0) and np.all(np.isfinite(got))
    assert np.max(_ulps(got, want)) <= BOUND_ULP["hypot"]
    assert approx.hypot(1.5e-170, 0.0) == 1.5e-170 and approx.hypot(1e300, 1e300) == math.hypot(1e300, 1e300)


def test_hypot_between_its_scaling_bounds_is_the_plain_formula_bit_for_bit():
    """Scaled only outside 2**-450 .. 2**450, so recordings made before the scaling replay with the same bits."""
    x, y = _log_uniform(SAMPLES, 2.0 ** -449, 2.0 ** 449), _log_uniform(SAMPLES, 2.0 ** -449, 2.0 ** 449)
    small = _log_uniform(SAMPLES, 5e-324, 2.0 ** -451)  # the larger inside the bounds, the smaller below: scale 1
    x, y = np.concatenate([x, x]), np.concatenate([y, small])
    got = _over("hypot", x, y)
    plain = np.sqrt(x * x + y * y)
    assert np.all(np.isfinite(plain)) and np.array_equal(got, plain)


def test_subnormal_results_of_exp_are_those_of_math():
    x = rng.uniform(-745.0, -708.4, 2000)
    got = _over("exp", x)
    want = np.array([math.exp(v) for v in x])
    assert np.max(np.abs(got - want)) <= 5e-324


SPECIAL = [
    ("atan", (0.0,), 0.0), ("atan", (-0.0,), -0.0), ("atan", (math.inf,), math.pi / 2),
    ("atan", (-math.inf,), -math.pi / 2), ("atan", (1.0,), math.pi / 4), ("atan", (5e-324,), 5e-324),
    ("atan2", (0.0, 1.0), 0.0), ("atan2", (-0.0, 1.0), -0.0), ("atan2", (0.0, -1.0), math.pi),
    ("atan2", (-0.0, -1.0), -math.pi), ("atan2", (0.0, -0.0), math.pi), ("atan2", (0.0, 0.0), 0.0),
    ("atan2", (1.0, 0.0), math.pi / 2), ("atan2", (-1.0, 0.0), -math.pi / 2), ("atan2", (1.0, -1.0), 3 * math.pi / 4),
    ("atan2", (math.inf, math.inf), math.pi / 4), ("atan2", (math.inf, -math.inf), 3 * math.pi / 4),
    ("atan2", (-math.inf, -math.inf), -3 * math.pi / 4), ("atan2", (1.0, math.inf), 0.0),
    ("atan2", (1.0, -math.inf), math.pi), ("atan2", (math.inf, 1.0), math.pi / 2),
    ("sin", (0.0,), 0.0), ("sin", (-0.0,), -0.0), ("cos", (0.0,), 1.0), ("tan", (0.0,), 0.0),
    ("exp", (0.0,), 1.0), ("exp", (1.0,), math.e), ("exp", (-800.0,), 0.0), ("exp", (710.0,), math.inf),
    ("log", (1.0,), 0.0), ("log", (0.0,), -math.inf), ("log", (math.e,), 1.0), ("log", (math.inf,), math.inf),
    ("hypot", (3.0, 4.0), 5.0), ("hypot", (0.0, 0.0), 0.0), ("pow2", (-1022.0,), 2.0 ** -1022),
    ("pow2", (1023.0,), 2.0 ** 1023), ("pow2", (0.0,), 1.0), ("pow2", (-1.0,), 0.5),
]


@pytest.mark.parametrize("name, args, want", SPECIAL, ids=[f"{n}{a}" for n, a, _ in SPECIAL])
def test_special_values(name, args, want):
    """Exact where the value is a double (zeros, infinities, powers of two), else within an ulp of it."""
    got = getattr(approx, name)(*args)
    assert got == want or abs(got - want) <= math.ulp(want)
    assert math.copysign(1.0, got) == math.copysign(1.0, want)


def test_nan_in_gives_nan_out_and_a_negative_log_is_nan():
    for name in ("atan", "sin", "cos", "tan", "exp", "log"):
        assert math.isnan(getattr(approx, name)(math.nan)), name
    assert math.isnan(approx.atan2(math.nan, 1.0)) and math.isnan(approx.log(-1.0))
    assert math.isnan(approx.atan2(1.0, math.nan)) and math.isnan(approx.atan2(3.0, math.nan))
    assert math.isnan(approx.hypot(math.nan, 1.0))


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-TRIG_RANGE, max_value=TRIG_RANGE, allow_nan=False))
@example(23258648.353447422)  # s * s + c * c is 1 + 2 ulp there
def test_sin_and_cos_lie_on_the_unit_circle_and_follow_math(x):
    s, c = approx.sincos(x)
    # Errors of up to 1.54 and 1.44 ulp in s and c (below 1.71e-16 each, |s| and |c| below 1) move s^2 + c^2 by at
    # most 2 (|s| + |c|) 1.71e-16 <= 4.84e-16, and the two squares and the sum round by up to 1.67e-16 more: below
    # 4 ulp of 1 (8.9e-16). 200,000 random inputs reached 2 ulp (4.44e-16, which a bound of 4e-16 failed on a
    # hypothesis example: x = 23258648.353447422).
    assert abs(s * s + c * c - 1.0) <= 4 * math.ulp(1.0)
    assert abs(s - math.sin(x)) <= 2.5 * math.ulp(1.0) and abs(c - math.cos(x)) <= 2.5 * math.ulp(1.0)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False))
def test_atan2_of_any_pair_follows_math(y, x):
    got, want = approx.atan2(y, x), math.atan2(y, x)
    assert abs(got - want) <= BOUND_ULP["atan2"] * math.ulp(want) or abs(got - want) <= 5e-324
    assert math.copysign(1.0, got) == math.copysign(1.0, want)


@numba.njit(error_model="numpy")
def _sincos_lanes(a, s, c):
    for i in range(a.size):
        s[i], c[i] = approx.sincos(a[i])


@pytest.mark.parametrize("name", ["atan", "atan2", "sincos", "tan", "exp", "log", "hypot"])
def test_a_vectorised_loop_gives_the_bits_of_one_call_at_a_time(name):
    """The lanes promise: the compiler vectorises the loop (vector registers in its machine code) and every lane's
    result has the bits of the scalar call."""
    two = name in ("atan2", "hypot")
    a = RANGES.get("sin" if name == "sincos" else name, RANGES["atan"])()[::10].copy()
    b = rng.permutation(a) if two else a
    if name == "sincos":
        loop, outs = _sincos_lanes, (np.empty_like(a), np.empty_like(a))
        loop(a, *outs)
        one = np.array([approx.sincos(u) for u in a]).T
    else:
        loop, outs = _lanes(name, two), (np.empty_like(a),)
        loop(a, b, outs[0])
        fn = getattr(approx, name)
        one = np.array([[fn(u, v) if two else fn(u) for u, v in zip(a, b, strict=True)]])
    asm = loop.inspect_asm(loop.signatures[0])
    assert re.search(r"\b[yz]mm\d+", asm), f"the loop over {name} was not vectorised"
    assert np.array_equal(np.array(outs).view(np.int64), one.view(np.int64))


LIBM = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "expm1", "log", "log1p",
        "log2", "log10", "hypot", "pow", "erf", "erfc", "gamma", "lgamma", "arctan", "arctan2", "arcsin", "arccos",
        "power"}


def test_no_compiled_model_function_calls_the_c_maths_library():
    """Every function of physics/ that numba compiles takes its transcendentals from physics.approx, and squares by
    products: ``x ** 2`` in plain Python is the C library's pow."""
    import dis
    import importlib
    import pkgutil

    import physics

    found, scanned = [], 0
    for info in pkgutil.iter_modules(physics.__path__):
        module = importlib.import_module(f"physics.{info.name}")
        for name, value in vars(module).items():
            py = getattr(value, "py_func", None)
            if py is None or getattr(py, "__module__", None) != module.__name__:
                continue
            scanned += 1
            code = list(dis.get_instructions(py))
            for a, b in zip(code, code[1:], strict=False):
                if a.argval in ("math", "np", "numpy") and b.argval in LIBM:
                    found.append(f"{module.__name__}.{name}: {a.argval}.{b.argval}")
            found += [f"{module.__name__}.{name}: **" for i in code if i.opname == "BINARY_OP" and i.argrepr == "**"]
    assert not found, found
    assert scanned > 100  # the scan saw the model's compiled functions
