"""003: clutch engagement (pedal and automatic), its torque capacity and how it couples engine speed.

``p`` is one car's parameter record (physics.records.PARAMS): ``p.clutch_capacity`` is the
preset's ``clutch.capacity``.
"""

from __future__ import annotations

from . import approx
from .jit import scalar


@scalar
def engagement(pedal, auto_clutch, speed, p):
    """Engagement 0..1 from the pedal, or from the automatic clutch at low speed.

    Below ``auto_speed`` the automatic clutch (its reached engagement ``auto_clutch``) decides;
    it hands over to the pedal over ``auto_band`` below that speed, so engagement never jumps. A
    pressed pedal always opens the clutch.
    """
    band = p.clutch_auto_band
    handover = min(max((abs(speed) - (p.clutch_auto_speed - band)) / band, 0.0), 1.0)
    return min(1.0 - pedal, max(auto_clutch, handover))


@scalar
def automatic(auto_clutch, rpm, p, dt):
    """003: the automatic clutch holds the engine near idle, engagement (rpm - idle) / auto_rpm_band.

    It engages at most ``auto_rate`` per second and lets go at once: slamming it shut in one step
    from a revving engine would drag the engine below idle and into a limit cycle at large dt.
    """
    goal = min(max((rpm - p.engine_idle_rpm) / p.clutch_auto_rpm_band, 0.0), 1.0)
    return min(goal, auto_clutch + p.clutch_auto_rate * dt)


@scalar
def launch(auto_clutch, rpm, speed, above_rpm, p, dt):
    """Combined model: the automatic launch clutch's engagement, handing over to the pedal at ``auto_speed``.

    The engagement :func:`automatic` aims for, or the hand-over share of :func:`engagement` where that is
    higher, reached at no more than ``auto_rate`` per second: a car that accelerates through the
    hand-over band in a tenth of a second would otherwise have its clutch slammed shut. Lets go at once.
    Under launch control (physics.step.launch_control) the hand-over also waits for the engine: its share
    shrinks by the engine's speed above what the wheels impose (``above_rpm``; the caller passes 0 where launch
    control does not hold the wheels, physics.step.grip_drive) over ``auto_rpm_band``, so the clutch closes as
    the engine comes down to the wheels and launch control holds the slip until it locks (shut on an engine
    186 rpm above them in a reverse launch, the clutch threw its momentum into the wheels).
    """
    band = p.clutch_auto_band
    handover = min(max((abs(speed) - (p.clutch_auto_speed - band)) / band, 0.0), 1.0)
    handover = handover * (1.0 - min(max(above_rpm / p.clutch_auto_rpm_band, 0.0), 1.0))
    goal = max(min(max((rpm - p.engine_idle_rpm) / p.clutch_auto_rpm_band, 0.0), 1.0), handover)
    return min(goal, auto_clutch + p.clutch_auto_rate * dt)


@scalar
def transmitted(torque, engagement, capacity):
    """Torque passed to the gearbox [N m]: the engine's, up to capacity * engagement; the rest is slip."""
    limit = capacity * engagement
    return min(max(torque, -limit), limit)


@scalar
def rpm_coupling(engagement, dt, sync_time):
    """Share of the gap to the drivetrain's speed the engine closes in one step.

    At engagement e the gap closes at the rate -ln(1 - e) / sync_time, so the blend does not
    depend on dt, a fully engaged clutch (e = 1) locks the engine to the wheels, and an open one
    lets it rev freely. (1 - e) ** (dt / sync_time) as exp(log(.) dt / sync_time), from physics.approx.
    A clutch fully open or closed (most frames) skips the two: the formula gives exactly 0 and 1 there
    (approx.log(1) is 0, approx.exp(0) is 1 and approx.exp(-inf) 0; tests/physics/test_drivetrain.py).
    """
    if engagement <= 0.0:
        return 0.0
    if engagement >= 1.0:
        return 1.0
    return 1.0 - approx.exp(dt / sync_time * approx.log(1.0 - engagement))
