"""003: clutch engagement (pedal and automatic), its torque capacity and how it couples engine speed."""

from __future__ import annotations

import numpy as np


def engagement(pedal, rpm, speed, c, idle_rpm):
    """Engagement 0..1 from the pedal, or from the automatic clutch at low speed.

    003: below ``auto_speed`` the automatic clutch holds the engine near idle with engagement
    (rpm - idle) / auto_rpm_band; it hands over to the pedal over ``auto_band`` below that speed,
    so engagement never jumps. A pressed pedal always opens the clutch.
    """
    auto = np.minimum(np.maximum((rpm - idle_rpm) / c.auto_rpm_band, 0.0), 1.0)
    handover = np.minimum(np.maximum((np.abs(speed) - (c.auto_speed - c.auto_band)) / c.auto_band, 0.0), 1.0)
    return np.minimum(1.0 - pedal, np.maximum(auto, handover))


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
