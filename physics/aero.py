"""002: aerodynamic drag and rolling resistance."""

from __future__ import annotations

import math

from .jit import scalar


def drag_constant(cd, frontal_area, air_density):
    """C_drag = 0.5 Cd A rho (002) [N s^2/m^2]; computed once per car, in Python."""
    return 0.5 * cd * frontal_area * air_density


@scalar
def drag(vx, vy, c_drag):
    """F_drag = -C_drag v |v| (002), as car-frame components [N]."""
    speed = math.hypot(vx, vy)
    return -c_drag * vx * speed, -c_drag * vy * speed


@scalar
def rolling(v, c_rr):
    """F_rr = -C_rr v (002) [N], along the wheels' rolling direction."""
    return -c_rr * v


@scalar
def never_reversing(force, v, mass, dt):
    """A resistance [N] along ``v``, limited to what stops the car within the step, never more.

    Integrated explicitly, a resistance larger than m |v| / dt (a very light car, a large dt)
    would push the car backwards and grow without bound; at most it brings the car to rest.
    """
    limit = mass * abs(v) / dt
    return min(max(force, -limit), limit)


@scalar
def resistances(vx, vy, c_drag, c_rr, mass, dt):
    """Drag (car-frame x and y) and rolling resistance [N], each unable to reverse the motion in one step."""
    drag_x, drag_y = drag(vx, vy, c_drag)
    drag_x = never_reversing(drag_x, vx, mass, dt)
    drag_y = never_reversing(drag_y, vy, mass, dt)
    roll = never_reversing(rolling(vx, c_rr), vx + dt * drag_x / mass, mass, dt)
    return drag_x, drag_y, roll
