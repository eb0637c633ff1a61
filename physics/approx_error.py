"""The error table of physics.approx: ``python -m physics.approx_error [n]`` measures each function against mpmath at
60 digits (mpmath is not a dependency of carbench: ``pip install mpmath``)."""

from __future__ import annotations

import math

import numpy as np

from .approx import MAXLOG, MINLOG, atan, atan2, cos, exp, hypot, log, sin, tan


def error_table(n: int = 200_000, seed: int = 1) -> list[tuple[str, float, float]]:
    """(function, largest error [ulp], at which input) of each function against mpmath at 60 digits, on ``n``
    random inputs log-uniform over its range and ``n`` uniform near the origin. Needs mpmath (not a dependency)."""
    import mpmath

    mpmath.mp.dps = 60
    gen = np.random.default_rng(seed)

    def log_uniform(lo, hi, signed=True):
        x = np.exp(gen.uniform(math.log(lo), math.log(hi), n))
        return x * gen.choice([-1.0, 1.0], n) if signed else x

    def ulps(got, exact):
        nearest = float(exact)
        if not math.isfinite(nearest):
            return 0.0 if got == nearest else math.inf
        return float(abs(mpmath.mpf(got) - exact) / math.ulp(max(abs(nearest), 2.2250738585072014e-308)))

    cases = [
        ("atan", atan, mpmath.atan, [log_uniform(1e-308, 1e308), gen.uniform(-4.0, 4.0, n)]),
        ("sin", sin, mpmath.sin, [log_uniform(1e-308, 2.0 ** 26), gen.uniform(-8.0, 8.0, n)]),
        ("cos", cos, mpmath.cos, [log_uniform(1e-308, 2.0 ** 26), gen.uniform(-8.0, 8.0, n)]),
        ("tan", tan, mpmath.tan, [log_uniform(1e-308, 2.0 ** 26), gen.uniform(-1.5707, 1.5707, n)]),
        ("exp", exp, mpmath.exp, [gen.uniform(MINLOG, MAXLOG, n), gen.uniform(-2.0, 2.0, n)]),
        ("log", log, mpmath.log, [log_uniform(2.3e-308, 1.7e308, signed=False), gen.uniform(0.5, 2.0, n)]),
    ]
    rows = []
    for name, fn, exact, parts in cases:
        worst, where = 0.0, 0.0
        for x in np.concatenate(parts):
            e = ulps(fn(float(x)), exact(mpmath.mpf(float(x))))
            if e > worst:
                worst, where = e, float(x)
        rows.append((name, worst, where))
    for name, fn, exact, lo, hi in (("atan2", atan2, mpmath.atan2, 1e-300, 1e300),
                                    ("hypot", hypot, lambda a, b: mpmath.sqrt(b * b + a * a), 5e-324, 1.7e308)):
        worst, where = 0.0, 0.0
        pairs = zip(np.concatenate([log_uniform(lo, hi), gen.uniform(-3.0, 3.0, n)]),
                    np.concatenate([log_uniform(lo, hi), gen.uniform(-3.0, 3.0, n)]), strict=True)
        for a, b in pairs:
            e = ulps(fn(float(a), float(b)), exact(mpmath.mpf(float(a)), mpmath.mpf(float(b))))
            if e > worst:
                worst, where = e, (float(a), float(b))
        rows.append((name, worst, where))
    return rows


if __name__ == "__main__":
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    print(f"largest error against mpmath (60 digits), {2 * count:,} inputs per function")
    for name, worst, where in error_table(count):
        print(f"{name:6s} {worst:6.3f} ulp  at {where!r}")
