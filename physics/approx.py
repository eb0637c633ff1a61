"""The transcendental functions the compiled model calls, as branch-free polynomial and rational approximations.

Every function here is built from +, -, *, /, sqrt, floor, copysign, selects (``a if c else b`` on
values already computed) and, for exp and log, integer shifts and bit casts of a double's exponent field,
with no data-dependent loop, no table and no call into the C maths library. So:

- the same source gives the same bits in a scalar call and in a loop over many cars that the compiler
  vectorises (no FMA contraction: the model is compiled without fastmath, so ``a * b + c`` is two
  roundings in both);
- the result does not depend on the machine's libm, which the C library's ``atan`` or ``sin`` do.

The approximations are Cephes' (S. L. Moshier, Cephes Math Library 2.8, 2000: ``atan.c``, ``sin.c``,
``exp.c``; the coefficients are the library's), with Cephes' branches rewritten as selects and the
argument reduction of ``atan2`` done by min/max. The table gives the largest error against correctly
rounded results (mpmath at 60 digits) that ``python -m physics.approx_error`` found on 400,000 inputs per
function, half log-uniform over the whole range and half near the origin: a measured figure, not a
proven bound (mpmath is not a dependency of carbench). ``tests/physics/test_approx.py`` checks each
function against Python's ``math``:

============  ==============================  ==============
function      input range                     largest error
============  ==============================  ==============
atan          every double                    0.85 ulp
atan2         every pair of doubles           2.52 ulp
sin           abs(x) <= 2**26 (6.7e7 rad)     1.54 ulp
cos           abs(x) <= 2**26                 1.44 ulp
tan           abs(x) <= 2**26                 3.03 ulp
exp           every double                    1.61 ulp (0 below -745.13, inf above 709.78)
log           every positive normal double    1.91 ulp
hypot         every pair with a finite hypot  1.15 ulp
============  ==============================  ==============

Near a zero of sin, cos or tan (x close to a multiple of pi/2) the error is absolute rather than
relative: the reduction by pi/4 in three parts leaves about 1e-31 abs(x), below 1e-22 over the range,
which is many ulp of a result that small (sin(pi) is 1.2e-16 with 7 ulp of error). Outside the ranges:
sin and cos lose accuracy gradually (the reduction is exact only up to 2**26), exp gives inf above
709.78 where ``math.exp`` raises. A car's heading reaches 2**26 rad only after 2 years of turning at
1 rad/s.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from .jit import DISABLED, scalar

if not DISABLED:
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

PIO2 = 1.5707963267948966  # pi / 2 rounded
PIO2_LO = 6.123233995736766e-17  # pi / 2 - PIO2
PIO4 = 0.7853981633974483
PI = 3.141592653589793
PI_LO = 1.2246467991473532e-16
T3P8 = 2.414213562373095  # tan(3 pi / 8)

# atan(x) = x + x z P(z) / Q(z), z = x^2, on 0 <= x <= 0.66 (Cephes atan.c)
_AP0, _AP1, _AP2, _AP3, _AP4 = (-8.750608600031904122785e-1, -1.615753718733365076637e1,
                                 -7.500855792314704667340e1, -1.228866684490136173410e2,
                                 -6.485021904942025371773e1)
_AQ0, _AQ1, _AQ2, _AQ3, _AQ4 = (2.485846490142306297962e1, 1.650270098316988542046e2,
                                 4.328810604912902668951e2, 4.853903996359136964868e2,
                                 1.945506571482613964425e2)


@scalar
def _atan_reduced(x):
    """atan(x) for 0 <= x <= 0.66 (Cephes' rational)."""
    z = x * x
    p = (((_AP0 * z + _AP1) * z + _AP2) * z + _AP3) * z + _AP4
    q = ((((z + _AQ0) * z + _AQ1) * z + _AQ2) * z + _AQ3) * z + _AQ4
    return x * (z * p / q) + x


@scalar
def atan(x):
    """Arctangent [rad] of any double (Cephes atan.c, branch-free): 0.85 ulp measured."""
    a = abs(x)
    big = a > T3P8
    mid = a > 0.66
    # big: atan(a) = pi/2 - atan(1/a); mid: pi/4 + atan((a - 1) / (a + 1)); small: atan(a)
    num = -1.0 if big else (a - 1.0 if mid else a)
    den = a if big else (a + 1.0 if mid else 1.0)
    base = PIO2 if big else (PIO4 if mid else 0.0)
    extra = PIO2_LO if big else (0.5 * PIO2_LO if mid else 0.0)
    r = _atan_reduced(num / den)
    return math.copysign(base + (r + extra), x)


@scalar
def atan2(y, x):
    """The angle [rad] of the vector (x, y), -pi..pi, like ``math.atan2`` (branch-free): 2.5 ulp measured.

    Reduced by min/max to atan(t), 0 <= t <= 1; atan2(0, 0) is 0 and atan2(+-0, -0) is +-pi, as in C.
    """
    ax, ay = abs(x), abs(y)
    swap = ay > ax
    top = ax if swap else ay
    bottom = ay if swap else ax
    t = top / (1.0 if bottom == 0.0 else bottom)  # atan2(0, 0) is atan(0); a nan stays nan
    t = 1.0 if top == math.inf else t  # both infinite: a diagonal, as in C
    mid = t > 0.4142135623730950  # tan(pi / 8)
    r = _atan_reduced((t - 1.0) / (t + 1.0) if mid else t)
    r = (PIO4 + (r + 0.5 * PIO2_LO)) if mid else r
    r = ((PIO2 - r) + PIO2_LO) if swap else r
    negative_x = x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0)
    r = ((PI - r) + PI_LO) if negative_x else r
    return math.copysign(r, y)


# sin and cos on |z| <= pi/4 (Cephes sin.c); pi/4 in three parts for the reduction
_S0, _S1, _S2, _S3, _S4, _S5 = (1.58962301576546568060e-10, -2.50507477628578072866e-8,
                                 2.75573136213857245213e-6, -1.98412698295895385996e-4,
                                 8.33333333332211858878e-3, -1.66666666666666307295e-1)
_C0, _C1, _C2, _C3, _C4, _C5 = (-1.13585365213876817300e-11, 2.08757008419747316778e-9,
                                 -2.75573141792967388112e-7, 2.48015872888517045348e-5,
                                 -1.38888888888730564116e-3, 4.16666666666665929218e-2)
_DP1, _DP2, _DP3 = 7.85398125648498535156e-1, 3.77489470793079817668e-8, 2.69515142907905952645e-15
_FOPI = 1.27323954473516268615  # 4 / pi


@scalar
def sincos(x):
    """(sin x, cos x) with one shared reduction by pi/4 (Cephes sin.c, branch-free): 1.5 ulp measured for
    abs(x) <= 2**26, away from the zeros (see the module's docstring)."""
    a = abs(x)
    y = np.floor(a * _FOPI)
    y = y + 1.0 if y - 2.0 * np.floor(0.5 * y) > 0.0 else y  # to the even multiple of pi/4 at or above
    j = y - 8.0 * np.floor(0.125 * y)  # octant 0, 2, 4 or 6
    z = ((a - y * _DP1) - y * _DP2) - y * _DP3
    zz = z * z
    s = z + z * (zz * (((((_S0 * zz + _S1) * zz + _S2) * zz + _S3) * zz + _S4) * zz + _S5))
    c = 1.0 - 0.5 * zz + zz * zz * (((((_C0 * zz + _C1) * zz + _C2) * zz + _C3) * zz + _C4) * zz + _C5)
    odd = j == 2.0 or j == 6.0  # sin and cos swap
    sin_a = c if odd else s
    cos_a = s if odd else c
    sin_a = -sin_a if j >= 4.0 else sin_a
    cos_a = -cos_a if (j == 2.0 or j == 4.0) else cos_a
    return (-sin_a if math.copysign(1.0, x) < 0.0 else sin_a), cos_a  # sin(-0) = -0


@scalar
def sin(x):
    """Sine of ``x`` [rad]: :func:`sincos`'s first value."""
    return sincos(x)[0]


@scalar
def cos(x):
    """Cosine of ``x`` [rad]: :func:`sincos`'s second value."""
    return sincos(x)[1]


@scalar
def tan(x):
    """Tangent of ``x`` [rad] as sin / cos from one :func:`sincos`: 3 ulp measured for abs(x) <= 2**26."""
    s, c = sincos(x)
    return s / c


# exp(r) = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)) on |r| <= ln(2) / 2 (Cephes exp.c)
_EP0, _EP1, _EP2 = 1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1
_EQ0, _EQ1, _EQ2, _EQ3 = (3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1,
                          2.00000000000000000009e0)
_LN2_HI, _LN2_LO = 6.93145751953125e-1, 1.42860682030941723212e-6
LOG2E = 1.4426950408889634
MAXLOG = 709.782712893384
MINLOG = -745.1332191019412  # below it e ** x rounds to 0


if DISABLED:
    def _double_from_bits(bits):
        return struct.unpack("<d", struct.pack("<q", int(bits)))[0]

    def _bits_of_double(x):
        return struct.unpack("<q", struct.pack("<d", float(x)))[0]
else:
    @intrinsic
    def _double_from_bits(typingctx, bits):
        """The double whose IEEE 754 bits are the int64 ``bits`` (one bitcast, which vectorises)."""
        if not isinstance(bits, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.bitcast(context.cast(builder, args[0], signature.args[0], types.int64), ir.DoubleType())
        return types.float64(bits), codegen

    @intrinsic
    def _bits_of_double(typingctx, x):
        """The IEEE 754 bits of the double ``x`` as an int64."""
        if not isinstance(x, types.Float):
            return None

        def codegen(context, builder, signature, args):
            return builder.bitcast(context.cast(builder, args[0], signature.args[0], types.float64), ir.IntType(64))
        return types.int64(x), codegen


@scalar
def pow2(n):
    """2 ** n, exactly, for a whole number n from -1022 to 1023 (the exponent field set directly)."""
    return _double_from_bits((np.int64(n) + 1023) << 52)


@scalar
def exp(x):
    """e ** x (Cephes exp.c, branch-free, scaled in two halves so that subnormal results come out too): 1.6 ulp
    measured; 0 below MINLOG, inf above MAXLOG, nan for nan."""
    nan = x != x
    xc = 0.0 if nan else min(max(x, MINLOG), MAXLOG)  # nan: computed at 0 (a defined conversion), given back below
    n = np.floor(LOG2E * xc + 0.5)
    r = (xc - n * _LN2_HI) - n * _LN2_LO
    rr = r * r
    p = r * ((_EP0 * rr + _EP1) * rr + _EP2)
    q = ((_EQ0 * rr + _EQ1) * rr + _EQ2) * rr + _EQ3
    e = 1.0 + 2.0 * (p / (q - p))
    # 2 ** n in two halves keeps each factor a normal double at both ends of the range
    half = np.floor(0.5 * n)
    e = (e * pow2(half)) * pow2(n - half)
    e = 0.0 if x < MINLOG else e
    e = math.inf if x > MAXLOG else e
    return x if nan else e


# log(x) = 2 atanh(z) = z + z^3 R(z^2) / S(z^2), z = (x - 1) / (x + 1), on sqrt(1/2) <= x < sqrt(2) (Cephes log.c)
_LR0, _LR1, _LR2 = -7.89580278884799154124e-1, 1.63866645699558079767e1, -6.41409952958715622951e1
_LS0, _LS1, _LS2 = -3.56722798256324312549e1, 3.12093766372244180303e2, -7.69691943550460008604e2
_LOG_C1, _LOG_C2 = 6.93359375e-1, -2.121944400546905827679e-4  # ln 2 in two parts
SQRTH = 0.70710678118654752440


@scalar
def log(x):
    """Natural logarithm of a positive normal double (Cephes log.c's second form, branch-free): 1.9 ulp measured.

    log(0) is -inf and a negative ``x`` gives nan, as numpy's. Subnormal ``x`` (below 2.2e-308) are not
    handled: the model takes logarithms of shares between 0 and 1 that are either 0 or far above that.
    """
    bits = _bits_of_double(x)
    e = np.float64((bits >> 52) & 0x7FF) - 1022.0
    m = _double_from_bits((bits & 0x000FFFFFFFFFFFFF) | 0x3FE0000000000000)  # x = m 2**e, 0.5 <= m < 1
    low = m < SQRTH
    e = e - 1.0 if low else e
    z = (m - 0.5) if low else ((m - 0.5) - 0.5)
    y = (0.5 * z + 0.5) if low else (0.5 * m + 0.5)
    t = z / y
    tt = t * t
    r = t * (tt * ((_LR0 * tt + _LR1) * tt + _LR2) / (((tt + _LS0) * tt + _LS1) * tt + _LS2))
    out = ((r + e * _LOG_C2) + t) + e * _LOG_C1
    out = -math.inf if x == 0.0 else out
    out = math.nan if not x >= 0.0 else out  # negative or nan
    return math.inf if x == math.inf else out


_HYPOT_TINY = 2.0 ** -450  # below it, squares lose digits (below 1e-154 they underflow to 0)
_HYPOT_HUGE = 2.0 ** 450  # above it, squares overflow (above 1e154)
_HYPOT_UP = 2.0 ** 600
_HYPOT_DOWN = 2.0 ** -600


@scalar
def hypot(x, y):
    """sqrt(x^2 + y^2) for every pair of finite doubles whose result is finite: 1.2 ulp measured.

    Where the larger of abs(x) and abs(y) is below 2**-450 or above 2**450, both are scaled by 2**600 or 2**-600
    first and the result back: powers of two, so the squares neither underflow nor overflow and the scaling is
    exact (but for a subnormal result, which the scaling back rounds once more). Between those bounds the scale is
    1, and the result has the same bits as sqrt(x * x + y * y).
    """
    big = max(abs(x), abs(y))
    scale = _HYPOT_UP if big < _HYPOT_TINY else (_HYPOT_DOWN if big > _HYPOT_HUGE else 1.0)
    back = _HYPOT_DOWN if big < _HYPOT_TINY else (_HYPOT_UP if big > _HYPOT_HUGE else 1.0)
    a = x * scale
    b = y * scale
    return math.sqrt(a * a + b * b) * back
