"""Faults put back into the model, one small context manager each, for the monitor and hunt tests.

Each fault is a variant of the compiled model (physics.build_kernel with one subsystem function
replaced). While the context is open, every Simulation made without an explicit kernel (the
replays and batches the monitor and hunt code runs) gets that variant; the variants are built
once per session and cached on disk.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from functools import cache

import bugs003

import physics.aero as aero
import physics.drive as drive
import physics.simulation as simulation
import physics.wheel as wheel
from physics import Kernel, build_kernel

_resistances = aero.resistances
_traction = drive.traction
_hold = wheel.hold


def _blend_switch(speed, low, high):
    """003's blend as a switch: fully kinematic below the band's top, fully dynamic above."""
    return 1.0 if speed < high else 0.0


def _blend_snap(dx, dy, dr, limit, yaw_limit):
    """003's blend: the kinematic share set onto the kinematic path in one frame, grip or no grip."""
    return 1.0


def _slip_by_division(u, w):
    """Slip angle as atan(lateral / forward): 0 / 0 at a standstill (the classic division)."""
    return math.atan(w / abs(u))


def _pushing_resistances(vx, vy, p, mass, dt, coefficient):
    """Drag and rolling resistance with the wrong sign: they push the car along."""
    drag_x, drag_y, roll = _resistances(vx, vy, p, mass, dt, coefficient)
    return -drag_x, -drag_y, -roll


def _reversing_hold(v, other_force, capacity, mass, dt):
    """A brake that always pushes rearwards with its full force."""
    return -capacity + 0.0 * v


def _ungripped_brakes(capacity, mu, load):
    """003's brakes: their whole force reaches the road, whatever its grip."""
    return capacity + 0.0 * mu * load


def _ungripped_sum(drive_force, brake_force, limit):
    """003's brakes: drive and brake forces add up with no road limit."""
    return brake_force + 0.0 * drive_force * limit


def _no_limiter(throttle, rpm, p):
    """The rev limiter cut out: the full throttle at any rpm."""
    return throttle


def _creeping_traction(demand, limit, spinning, still_spinning, spin_fraction, may_spin):
    """The drivetrain pushes 50 N with no throttle: a car at rest with no input rolls away."""
    force, spin = _traction(demand, limit, spinning, still_spinning, spin_fraction, may_spin)
    return force + 50.0, spin


def _meeting_past_the_grip(omega, drive_torque, force, brake, radius, inertia, u_start, u_without, mass, dt):
    """A tyre that grips again within the frame passes whatever brings wheel and road together, grip or no
    grip (what a lock-up at 120 km/h once did: 27 kN through a tyre of 8.5 kN)."""
    free = omega + dt * (drive_torque - radius * force) / inertia
    u_end = u_without + dt * force / mass
    if (free * radius - u_end) * (omega * radius - u_start) < 0.0:
        force = (radius * omega + radius * dt * drive_torque / inertia - u_without) / (
            dt * (radius * radius / inertia + 1.0 / mass))
        free = omega + dt * (drive_torque - radius * force) / inertia
    braked, held = _hold(free, brake, inertia, dt)
    return braked, free, held, force


VARIANTS = {
    "blend_snap": {"blend.kinematic_weight": _blend_switch, "blend.reach": _blend_snap},
    "clutch_stop": bugs003.CLUTCH_STOP,
    "full_lock_stall": bugs003.FULL_LOCK,
    "slip_nan": {"tyre.slip": _slip_by_division},
    "pushing_drag": {"aero.resistances": _pushing_resistances},
    "reversing_brake": {"brakes.hold": _reversing_hold},
    "ungripped_brakes": {"brakes.road_limit": _ungripped_brakes, "brakes.within_grip": _ungripped_sum},
    "no_rev_limiter": {"engine.limited_throttle": _no_limiter},
    "idle_creep": {"drive.traction": _creeping_traction},
    "meeting_past_the_grip": {"wheel.at_limit": _meeting_past_the_grip},
}


@cache
def kernel(name: str) -> Kernel:
    """The model with fault ``name`` put back."""
    return build_kernel(VARIANTS[name], cache=True)


@contextlib.contextmanager
def _faulty(name: str) -> Iterator[Kernel]:
    variant = kernel(name)
    original = simulation.default_kernel
    simulation.default_kernel = lambda: variant
    try:
        yield variant
    finally:
        simulation.default_kernel = original


def blend_snap():
    """The low-speed blend as a switch with no grip limit: the kinematic model overwrites the lateral speed and
    yaw rate in one frame."""
    return _faulty("blend_snap")


ICE = {"tyres.mu": 0.1, "tyres.traction_mu": 0.1}
"""Parameters of an icy road for the brake scenario."""


def clutch_stop():
    """003's clutch stop: the stop rule compares |acceleration| instead of |speed|."""
    return _faulty("clutch_stop")


def full_lock_stall():
    """003's full-lock stall: tyre forces acting at a crawl, and a low-speed bicycle with no lateral speed."""
    return _faulty("full_lock_stall")


def slip_nan():
    """Slip angle as atan(lateral / forward): NaN at a standstill."""
    return _faulty("slip_nan")


def pushing_drag():
    """Drag and rolling resistance with the wrong sign: they push the car along."""
    return _faulty("pushing_drag")


def reversing_brake():
    """A brake that always pushes rearwards with its full force: it stops a car rolling forwards and
    then drives it backwards."""
    return _faulty("reversing_brake")


def ungripped_brakes():
    """003's brakes, not limited by the road: on ice they stop the car harder than mu g allows."""
    return _faulty("ungripped_brakes")


def no_rev_limiter():
    """The rev limiter cut out: the wheels drive the engine past the limit in 1st."""
    return _faulty("no_rev_limiter")


def idle_creep():
    """The drivetrain pushes with no throttle (a car at rest with no input rolls away)."""
    return _faulty("idle_creep")


def meeting_past_the_grip():
    """A tyre gripping again within the frame with no limit on its force."""
    return _faulty("meeting_past_the_grip")
