"""003: the engine's torque curve, internal friction, rev limiter and free revving."""

from __future__ import annotations

import numpy as np

RPM_PER_RAD_S = 60.0 / (2.0 * np.pi)


def curve(rpm, e):
    """Full-throttle torque [N m]: a bell peaking at ``peak_torque`` at ``peak_rpm``, never below the floor."""
    width = np.where(rpm < e.peak_rpm, e.width_below, e.width_above)
    z = (rpm - e.peak_rpm) / width
    return e.peak_torque * np.maximum(np.exp(-z * z), e.torque_floor)


def friction(rpm, e):
    """Internal friction [N m], rising linearly from ``friction_idle`` at idle to ``friction_max`` at the limit."""
    share = np.minimum(np.maximum((rpm - e.idle_rpm) / (e.rev_limit - e.idle_rpm), 0.0), 1.0)
    return e.friction_idle + (e.friction_max - e.friction_idle) * share


def limited_throttle(throttle, rpm, e):
    """The throttle the limiter lets through: cut linearly over ``limiter_band`` below the rev limit."""
    open_share = np.minimum(np.maximum((e.rev_limit - rpm) / e.limiter_band, 0.0), 1.0)
    return throttle * open_share


def net_torque(throttle, rpm, e, turned_back):
    """Torque at the flywheel [N m]: curve times throttle minus friction; negative off throttle (engine braking).

    Friction opposes the engine's rotation: where the wheels turn it backwards (``turned_back``:
    the car rolls against the selected gear) it acts the other way, so engine braking always
    brakes. The idle control opens the throttle just enough to carry the friction at idle,
    fading out over ``limiter_band`` above it: an idling engine neither drags nor pushes, so the
    automatic clutch never pulls a car at rest backwards.
    """
    drag = friction(rpm, e)
    idle_share = np.minimum(np.maximum((e.idle_rpm + e.limiter_band - rpm) / e.limiter_band, 0.0), 1.0)
    return np.maximum(throttle * curve(rpm, e), idle_share * drag) - drag * (1.0 - 2.0 * turned_back)


def free_rpm(rpm, throttle, e, dt):
    """Engine speed after dt revving freely (clutch open or in neutral).

    003: it rises with the throttle (at ``rise_rate`` times the throttle, toward a free-running
    speed that grows with the throttle up to the rev limit) and falls at ``fall_rate`` without it,
    never below idle; below idle (after the drivetrain held it there) the idle control lifts it.
    """
    target = e.idle_rpm + throttle * (e.rev_limit - e.idle_rpm)
    up = np.maximum(throttle, rpm < e.idle_rpm) * (e.rise_rate * dt)
    return np.where(rpm < target, np.minimum(rpm + up, target), np.maximum(rpm - e.fall_rate * dt, target))


def coupled_rpm(free, drivetrain, coupling):
    """003: engine speed blended between free revving and what the drivetrain imposes."""
    return free + (drivetrain - free) * coupling
