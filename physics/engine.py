"""003: the engine's torque curve, internal friction, rev limiter and free revving.

``p`` is one car's parameter record (physics.records.PARAMS): ``p.engine_peak_torque`` is the
preset's ``engine.peak_torque``.
"""

from __future__ import annotations

import math

from . import approx
from .jit import scalar

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)


@scalar
def curve(rpm, p):
    """Full-throttle torque [N m]: a bell peaking at ``peak_torque`` at ``peak_rpm``, never below the floor."""
    width = p.engine_width_below if rpm < p.engine_peak_rpm else p.engine_width_above
    z = (rpm - p.engine_peak_rpm) / width
    return p.engine_peak_torque * max(approx.exp(-z * z), p.engine_torque_floor)


@scalar
def friction(rpm, p):
    """Internal friction [N m], rising linearly from ``friction_idle`` at idle to ``friction_max`` at the limit,
    and below idle towards ``friction_breakaway`` at a standstill (where that is higher): a dead engine turned
    slowly by the wheels or the starter."""
    share = min(max((rpm - p.engine_idle_rpm) / (p.engine_rev_limit - p.engine_idle_rpm), 0.0), 1.0)
    slow = max(1.0 - rpm / p.engine_idle_rpm, 0.0)
    rise = max(p.engine_friction_breakaway - p.engine_friction_idle, 0.0)
    return p.engine_friction_idle + (p.engine_friction_max - p.engine_friction_idle) * share + rise * slow


@scalar
def limited_throttle(throttle, rpm, p):
    """The throttle the limiter lets through: cut linearly over ``limiter_band`` below the rev limit."""
    open_share = min(max((p.engine_rev_limit - rpm) / p.engine_limiter_band, 0.0), 1.0)
    return throttle * open_share


@scalar(inline=True)
def net_torque(throttle, rpm, p, turned_back):
    """Torque at the flywheel [N m]: curve times throttle minus friction; negative off throttle (engine braking).

    Friction opposes the engine's rotation: where the wheels turn it backwards (``turned_back``:
    the car rolls against the selected gear) it acts the other way, so engine braking always
    brakes. The idle control opens the throttle just enough to carry the friction at idle,
    fading out over ``limiter_band`` above it: an idling engine neither drags nor pushes, so the
    automatic clutch never pulls a car at rest backwards.
    """
    drag = friction(rpm, p)
    band = p.engine_limiter_band
    idle_share = min(max((p.engine_idle_rpm + band - rpm) / band, 0.0), 1.0)
    back = 1.0 if turned_back else 0.0
    return max(throttle * curve(rpm, p), idle_share * drag) - drag * (1.0 - 2.0 * back)


@scalar
def turned_speed(omega, torque, clutch_torque, p, dt):
    """Combined model: the engine's speed [rad/s] after dt turning freely of the wheels, under its own ``torque``
    and less the ``clutch_torque`` it passes on. The fuel carries it no further than the rev limit within the frame
    (the limiter cuts the fuel where it gets there, not at the next frame's start): without that a free engine
    revved past the limit by what a frame's torque adds (7,345 rpm on a 7,000 rpm limit at dt = 1/30 s). What the
    clutch turns it by is not limited.
    """
    turned = omega + dt * (torque - clutch_torque) / p.engine_inertia
    if torque > 0.0:
        return min(turned, max(p.engine_rev_limit / RPM_PER_RAD_S, omega, omega - dt * clutch_torque / p.engine_inertia))
    return turned


@scalar
def free_rpm(rpm, throttle, p, dt):
    """Engine speed after dt revving freely (clutch open or in neutral).

    003: it rises with the throttle (at ``rise_rate`` times the throttle, toward a free-running
    speed that grows with the throttle up to the rev limit) and falls at ``fall_rate`` without it,
    never below idle; below idle (after the drivetrain held it there) the idle control lifts it.
    """
    idle = p.engine_idle_rpm
    target = idle + throttle * (p.engine_rev_limit - idle)
    up = max(throttle, 1.0 if rpm < idle else 0.0) * (p.engine_rise_rate * dt)
    if rpm < target:
        return min(rpm + up, target)
    return max(rpm - p.engine_fall_rate * dt, target)


@scalar
def coupled_rpm(free, drivetrain, coupling):
    """003: engine speed blended between free revving and what the drivetrain imposes."""
    return free + (drivetrain - free) * coupling


@scalar
def starter(rpm, p):
    """The starter motor's torque at the crankshaft [N m]: ``starter_torque`` at rest, falling linearly to
    zero at ``starter_rpm`` (a series-wound DC motor's torque-speed line), never driving backwards."""
    return p.engine_starter_torque * min(max(1.0 - rpm / p.engine_starter_rpm, 0.0), 1.0)


@scalar
def governed_torque(throttle, rpm, p, stalled, cranking):
    """Combined model: torque at the flywheel [N m] with an idle governor, or a stalled engine's friction
    and, while the key is held, the starter's torque.

    The driver's throttle times the curve, or what the idle control opens: at idle just enough to
    carry the friction (fading out over ``limiter_band`` above idle, as in :func:`net_torque`), and
    below idle more, up to ``idle_authority`` of the peak torque ``limiter_band`` below it (never
    more than the curve gives): an idle controller opens the throttle a little, it is not the
    driver's foot, so a load beyond that drags the engine under idle and, below ``stall_rpm``,
    stalls it. A stalled engine gives no torque of its own: its friction opposes its rotation, and
    at rest holds it against a starter weaker than the friction.
    """
    return governed_torques(throttle, rpm, p, stalled, cranking)[0]


@scalar(inline=True)
def governed_torques(throttle, rpm, p, stalled, cranking):
    """:func:`governed_torque`, and the running engine's closed-throttle torque at ``rpm`` (governed_torque(0.0, rpm,
    p, False, False), what traction control may take the engine down to), computing the friction and the curve once
    for both: the same operations, so the same bits, as two calls."""
    drag = friction(rpm, p)
    band = p.engine_limiter_band
    idle = p.engine_idle_rpm
    full = curve(rpm, p)
    carry = min(max((idle + band - rpm) / band, 0.0), 1.0)
    lift = min(max((idle - rpm) / band, 0.0), 1.0)
    governor = min(carry * drag + lift * p.engine_idle_authority * p.engine_peak_torque, full)
    closed = max(0.0 * full, governor) - drag
    if stalled:
        crank = starter(rpm, p) if cranking else 0.0
        return (crank - drag if rpm > 0.0 else max(crank - drag, 0.0)), closed
    return max(throttle * full, governor) - drag, closed


@scalar
def next_stalled(rpm, previous_rpm, stalled, cranking, p):
    """Whether the engine is stalled after this frame: a running engine dragged down past ``stall_rpm``
    dies; a stalled one fires while the starter turns it at ``firing_rpm`` or more.

    A just-fired engine below ``stall_rpm`` that the idle control is lifting does not die again: only
    an engine the load pulls down does.
    """
    if stalled:
        return not (cranking and rpm >= p.engine_firing_rpm)
    return rpm < p.engine_stall_rpm and rpm < previous_rpm
