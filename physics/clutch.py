"""003: clutch engagement (pedal and automatic), its torque capacity and how it couples engine speed."""

from __future__ import annotations

import numpy as np


def engagement(pedal, auto_clutch, speed, c):
    """Engagement 0..1 from the pedal, or from the automatic clutch at low speed.

    Below ``auto_speed`` the automatic clutch (its reached engagement ``auto_clutch``) decides;
    it hands over to the pedal over ``auto_band`` below that speed, so engagement never jumps. A
    pressed pedal always opens the clutch.
    """
    handover = np.minimum(np.maximum((np.abs(speed) - (c.auto_speed - c.auto_band)) / c.auto_band, 0.0), 1.0)
    return np.minimum(1.0 - pedal, np.maximum(auto_clutch, handover))


def automatic(auto_clutch, rpm, c, idle_rpm, dt):
    """003: the automatic clutch holds the engine near idle, engagement (rpm - idle) / auto_rpm_band.

    It engages at most ``auto_rate`` per second and lets go at once: slamming it shut in one step
    from a revving engine would drag the engine below idle and into a limit cycle at large dt.
    """
    goal = np.minimum(np.maximum((rpm - idle_rpm) / c.auto_rpm_band, 0.0), 1.0)
    return np.minimum(goal, auto_clutch + c.auto_rate * dt)


def transmitted(torque, engagement, capacity):
    """Torque passed to the gearbox [N m]: the engine's, up to capacity * engagement; the rest is slip."""
    limit = capacity * engagement
    return np.minimum(np.maximum(torque, -limit), limit)


def rpm_coupling(engagement, dt, sync_time):
    """Share of the gap to the drivetrain's speed the engine closes in one step.

    At engagement e the gap closes at the rate -ln(1 - e) / sync_time, so the blend does not
    depend on dt, a fully engaged clutch (e = 1) locks the engine to the wheels, and an open one
    lets it rev freely.
    """
    return 1.0 - (1.0 - engagement) ** (dt / sync_time)
