"""Faults put back into the model, one small context manager each, for the monitor and hunt tests.

Every fault patches the model through one public seam of ``physics`` (a module-level function the
step looks up at call time). When the model's internals move, re-target the patch here and
nowhere else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

import physics.aero as aero
import physics.blend as blend
import physics.brakes as brakes
import physics.engine as engine
import physics.standstill as standstill
import physics.tyre as tyre


@contextlib.contextmanager
def _patched(module, name: str, replacement) -> Iterator[None]:
    original = getattr(module, name)
    setattr(module, name, replacement)
    try:
        yield
    finally:
        setattr(module, name, original)


def blend_snap():
    """The low-speed blend as a switch: the kinematic model overwrites the lateral speed and yaw rate in one frame."""
    def switch(speed, low, high):
        return np.where(speed < high, 1.0, 0.0)

    return _patched(blend, "kinematic_weight", switch)


@contextlib.contextmanager
def brake_without_grip() -> Iterator[None]:
    """Brakes that ignore the tyres' grip. Today's model has no grip limit on its brakes, so
    nothing needs patching: the scenario drives on ice (see ``ICE``). A model with that limit
    puts the unlimited force back here."""
    yield


ICE = {"tyres.mu": 0.1, "tyres.traction_mu": 0.1}
"""Parameters of an icy road for the brake scenario."""


def clutch_stop():
    """003's clutch stop: the stop rule compares |acceleration| instead of |speed|."""
    def stop_on_acceleration(speed, accel, drive_force, stop_speed, weight):
        no_drive = np.abs(drive_force) <= 1e-3 * weight
        return (np.abs(accel) < stop_speed) & no_drive

    return _patched(standstill, "stop_mask", stop_on_acceleration)


@contextlib.contextmanager
def full_lock_stall() -> Iterator[None]:
    """003's full-lock stall: tyre forces acting at a crawl, and a low-speed bicycle with no lateral speed."""
    def yaw_only(vx, tan_delta, lr, wheelbase):
        return 0.0 * vx, vx * tan_delta / wheelbase

    with _patched(blend, "tyre_force_weight", lambda kinematic: np.ones_like(kinematic)), \
            _patched(blend, "kinematic_motion", yaw_only):
        yield


def slip_nan():
    """Slip angle as atan(lateral / forward): 0 / 0 at a standstill (the classic division)."""
    def slip(u, w):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.arctan(w / np.abs(u))

    return _patched(tyre, "slip", slip)


def pushing_drag():
    """Drag and rolling resistance with the wrong sign: they push the car along."""
    original = aero.resistances

    def resistances(vx, vy, c_drag, c_rr, mass, dt):
        drag_x, drag_y, roll = original(vx, vy, c_drag, c_rr, mass, dt)
        return -drag_x, -drag_y, -roll

    return _patched(aero, "resistances", resistances)


def reversing_brake():
    """A brake that always pushes rearwards with its full force: it stops a car rolling forwards and
    then drives it backwards."""
    def hold(v, other_force, capacity, mass, dt):
        return -capacity + 0.0 * v

    return _patched(brakes, "hold", hold)



def no_rev_limiter():
    """The rev limiter cut out: the wheels drive the engine past the limit in 1st."""
    return _patched(engine, "limited_throttle", lambda throttle, rpm, e: throttle)


def idle_creep():
    """The drivetrain pushes with no throttle (a car at rest with no input rolls away)."""
    import physics.drive as drive

    original = drive.traction

    def traction(demand, limit, spinning, still_spinning, spin_fraction):
        force, spin = original(demand, limit, spinning, still_spinning, spin_fraction)
        return force + 50.0, spin

    return _patched(drive, "traction", traction)
