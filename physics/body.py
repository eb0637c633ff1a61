"""The rigid body: axle loads with weight transfer, the frame's turn, and the body's linearly implicit step."""

from __future__ import annotations

from . import approx
from .jit import scalar

MIN_AXLE_SHARE = 0.2  # 003: each axle keeps at least 20% of the weight


@scalar
def axle_loads(mass, gravity, lr, wheelbase, cg_height, accel):
    """003: front and rear axle loads [N], shifted rearwards by longitudinal acceleration.

    F_front = m (g lr - a h) / L. Uses the previous step's acceleration (this step's depends on
    the loads: circular), and keeps each axle at or above 20% of the weight so that no tyre
    loses all its grip.
    """
    weight = mass * gravity
    front = mass * (gravity * lr - accel * cg_height) / wheelbase
    front = min(max(front, MIN_AXLE_SHARE * weight), (1.0 - MIN_AXLE_SHARE) * weight)
    return front, weight - front


@scalar
def travels_backwards(vx, vy, vx_before, vy_before, before):
    """Whether the car travels backwards along itself: the sign of the ``speed`` channel.

    The sign is the forward speed's only where the velocity could have passed through zero this frame
    (its size is no more than the frame's change of it): a car reversing from rest, or braking through
    a standstill into reverse, changes it; a car that spins keeps it (its vx crosses zero while it
    slides sideways at speed, and a sign taken from vx would flip the speed from +v to -v in one frame).
    """
    size = approx.hypot(vx, vy)
    if size <= approx.hypot(vx - vx_before, vy - vy_before):
        return vx < 0.0
    return before


@scalar
def frame_turn(vx, vy, angle):
    """The car-frame velocity after the frame has turned by ``angle`` [rad] under it (exact rotation)."""
    s, c = approx.sincos(angle)
    return vx * c + vy * s, vy * c - vx * s


@scalar
def planar_step(mass, inertia, x_force, y_force, moment, kx_front, kx_rear, ky_front, ky_rear, cos_d, sin_d, lf, lr,
                dt):
    """The changes of vx, vy and yaw rate over dt under car-frame forces and a yaw moment, linearly implicit
    in every tyre's slope at once (the single-track cars'; the 002/003 car's tyres have lateral slopes only).

    M dv/dt = F(v) with M = diag(m, m, Iz), v = (vx, vy, r). Each tyre's force changes with its own
    slip speed, one direction in (vx, vy, r): the front wheel's rolling direction h = (cos d, sin d,
    lf sin d) and its sideways direction g = (-sin d, cos d, lf cos d), the rear's (1, 0, 0) and
    (0, 1, -lr); ``kx_*``/``ky_*`` are the slopes [N per L/s] along them. Solving
    (M + dt K) dv = dt F with K = sum k n n^T keeps each tyre's force along its own wheel axes, so
    the step cannot turn a tyre's force into a push along the way it rolls (solving the forward
    speed and the lateral motion one after the other did, and made energy when the wheel turned
    at a crawl). K is symmetric and positive, M + dt K too: the step damps.
    """
    c, s = cos_d, sin_d
    a11 = mass + dt * (kx_front * c * c + kx_rear + ky_front * s * s)
    a12 = dt * (kx_front - ky_front) * c * s
    a13 = lf * a12
    a22 = mass + dt * (kx_front * s * s + ky_front * c * c + ky_rear)
    a23 = dt * (lf * (kx_front * s * s + ky_front * c * c) - ky_rear * lr)
    a33 = inertia + dt * (lf * lf * (kx_front * s * s + ky_front * c * c) + ky_rear * lr * lr)
    b1, b2, b3 = dt * x_force, dt * y_force, dt * moment
    # Cramer's rule on the symmetric 3 x 3 system (positive definite: det > 0).
    c11 = a22 * a33 - a23 * a23
    c12 = a13 * a23 - a12 * a33
    c13 = a12 * a23 - a13 * a22
    det = a11 * c11 + a12 * c12 + a13 * c13
    c22 = a11 * a33 - a13 * a13
    c23 = a12 * a13 - a11 * a23
    c33 = a11 * a22 - a12 * a12
    return ((c11 * b1 + c12 * b2 + c13 * b3) / det, (c12 * b1 + c22 * b2 + c23 * b3) / det,
            (c13 * b1 + c23 * b2 + c33 * b3) / det)


@scalar
def sideways_give_back(over_f, over_r, cos_d, sin_d, lf, lr, mass, inertia, dt):
    """The changes of vx, vy and yaw rate a single-track car's body takes where its tyres' lateral forces change by
    ``over_f`` and ``over_r`` [N] over dt: each along its tyre's sideways direction, the front wheel's (-sin d, cos d,
    lf cos d) and the rear's (0, 1, -lr) (:func:`planar_step`'s)."""
    return (-(dt * over_f * sin_d / mass), dt * (over_f * cos_d + over_r) / mass,
            dt * (lf * over_f * cos_d - lr * over_r) / inertia)


@scalar
def solve3(a11, a12, a13, a22, a23, a33, b1, b2, b3):
    """x of the symmetric positive definite 3 x 3 system A x = b, by Cramer's rule."""
    c11 = a22 * a33 - a23 * a23
    c12 = a13 * a23 - a12 * a33
    c13 = a12 * a23 - a13 * a22
    det = a11 * c11 + a12 * c12 + a13 * c13
    c22 = a11 * a33 - a13 * a13
    c23 = a12 * a13 - a11 * a23
    c33 = a11 * a22 - a12 * a12
    return ((c11 * b1 + c12 * b2 + c13 * b3) / det, (c12 * b1 + c22 * b2 + c23 * b3) / det,
            (c13 * b1 + c23 * b2 + c33 * b3) / det)
