"""002: aerodynamic drag and rolling resistance."""

from __future__ import annotations

from . import approx
from .jit import scalar


def drag_constant(cd, frontal_area, air_density):
    """C_drag = 0.5 Cd A rho (002) [N s^2/m^2]; computed once per car, in Python."""
    return 0.5 * cd * frontal_area * air_density


@scalar
def drag(vx, vy, c_drag):
    """F_drag = -C_drag v |v| (002), as car-frame components [N]."""
    speed = approx.hypot(vx, vy)
    return -c_drag * vx * speed, -c_drag * vy * speed


@scalar
def rolling(v, c_rr):
    """F_rr = -C_rr v (002) [N], along the wheels' rolling direction."""
    return -c_rr * v


@scalar
def road_rolling(v, coefficient, weight, band):
    """A road tyre's rolling resistance [N]: C_rr m g against the motion, whatever the speed.

    Measured rolling coefficients of car tyres barely change below about 100 km/h (Gillespie,
    Fundamentals of Vehicle Dynamics, 1992, sec. 4, fig. 4.10; SAE J2452's coast-down fits), unlike
    002's term that grows with v. Below ``band`` [L/s] (the speeds the model takes for rest,
    ``model.stop_speed``) the force falls linearly to zero, so it passes through a standstill
    continuously and never pushes a car at rest.
    """
    return -coefficient * weight * v / max(abs(v), band)


@scalar
def never_reversing(force, v, mass, dt):
    """A resistance [N] along ``v``, limited to what stops the car within the step, never more.

    Integrated explicitly, a resistance larger than m |v| / dt (a very light car, a large dt)
    would push the car backwards and grow without bound; at most it brings the car to rest.
    """
    limit = mass * abs(v) / dt
    return min(max(force, -limit), limit)


@scalar
def resistances(vx, vy, p, mass, dt, coefficient):
    """Drag (car-frame x and y) and rolling resistance [N], each unable to reverse the motion in one step.

    The rolling resistance is 002's linear term plus a road tyre's constant one, ``coefficient`` (the car's
    aero.rolling_coefficient, or the roads' under its wheels); either may be zero.
    """
    drag_x, drag_y = drag(vx, vy, p.c_drag)
    drag_x = never_reversing(drag_x, vx, mass, dt)
    drag_y = never_reversing(drag_y, vy, mass, dt)
    resist = rolling(vx, p.aero_rolling) + road_rolling(vx, coefficient, mass * p.model_gravity,
                                                        max(p.model_stop_speed, 1e-3))
    roll = never_reversing(resist, vx + dt * drag_x / mass, mass, dt)
    return drag_x, drag_y, roll
