"""The rigid body: axle loads with weight transfer, and the lateral/yaw integration step."""

from __future__ import annotations

import math

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
def frame_turn(vx, vy, angle):
    """The car-frame velocity after the frame has turned by ``angle`` [rad] under it (exact rotation)."""
    c, s = math.cos(angle), math.sin(angle)
    return vx * c + vy * s, vy * c - vx * s


@scalar
def lateral_step(vy, r, fy, mz, kf, kr, cos_d, lf, lr, mass, inertia, dt):
    """Lateral velocity and yaw rate after dt under the car-frame lateral force ``fy`` and yaw moment ``mz``.

    m dvy/dt = Fy and Iz dr/dt = Mz (002, 003) for ``vy`` already carried through the frame's
    turn (:func:`frame_turn`), integrated linearly implicitly: the tyre forces' dependence on vy
    and r (their slopes ``kf``/``kr`` [N per m/s of sideways speed at the contact patch]) is
    solved for, so the stiff tyre modes at low speed stay stable at any dt instead of diverging
    as explicit Euler does.
    """
    kf_c = kf * cos_d * cos_d
    cross = kr * lr - kf_c * lf
    j11 = -(kf_c + kr) / mass
    j12 = cross / mass
    j21 = cross / inertia
    j22 = -(kf_c * lf * lf + kr * lr * lr) / inertia
    b1 = dt * fy / mass
    b2 = dt * mz / inertia
    a11 = 1.0 - dt * j11
    a12 = -dt * j12
    a21 = -dt * j21
    a22 = 1.0 - dt * j22
    det = a11 * a22 - a12 * a21  # > 1: the tyre terms are damping and the coupling symmetric
    return vy + (a22 * b1 - a12 * b2) / det, r + (a11 * b2 - a21 * b1) / det
