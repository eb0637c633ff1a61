"""The closed-loop driver's schema: its gains (tunable, with units) and what a script asks of it.

:class:`DriverParams` are the gains of the path and speed controllers and the shift rule, declared
like the car's parameters (a script's ``[driver]`` table sets them, checked against their ranges).
:class:`DriverSetup` is what the driver is to do: follow a path or not, hold a speed or a pedal,
and what changes at a time or a distance. physics.records builds the kernel's DRIVER record from
both; physics.driver is the compiled driver itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .schema import param

# What the driver does with the pedals.
PEDALS_NONE, PEDALS_SPEED, PEDALS_FIXED = 0, 1, 2
# What happens to the pedals once the trigger (a time or a distance) is reached.
AFTER_CONTINUE, AFTER_HOLD, AFTER_RELEASE, AFTER_DECELERATE = 0, 1, 2, 3
AFTER_THROTTLE = {"continue": AFTER_CONTINUE, "hold": AFTER_HOLD, "release": AFTER_RELEASE,
                  "decelerate": AFTER_DECELERATE}
AFTER_STEER = {"continue": 0, "hold": 1}


@dataclass(frozen=True, kw_only=True)
class DriverParams:
    """Gains of the driver: a preview path follower, a speed controller on the pedals, a shift rule."""

    preview_time: float = param(0.25, unit="s", doc="the lateral error is taken at the point this far ahead along "
                                                    "the car's course (preview distance = speed * time)", lo=0.01,
                                hi=10.0, span=(0.1, 2.0))
    preview_min: float = param(1.5, unit="m", doc="the preview distance is at least this (a crawling car still "
                                                  "looks ahead)", lo=1e-3, hi=1e4, span=(0.1, 20.0))
    damping: float = param(1.3, doc="damping ratio of the lateral error the preview law asks for "
                                    "(gain 4 damping^2 / preview distance^2)", lo=0.1, hi=3.0, span=(0.3, 1.5))
    lead_time: float = param(0.05, unit="s", doc="the path's curvature is fed forward from this far ahead (the "
                                                "steering and the tyres lag)", lo=0.0, hi=2.0, span=(0.0, 0.5))
    integral_time: float = param(1.5, unit="s", doc="integral time of the lateral error (a steady understeer "
                                                    "or oversteer is trimmed out)", lo=0.05, hi=1e3,
                                 span=(0.2, 20.0))
    yaw_gain: float = param(1.0, doc="extra steer per unit of curvature the car falls short of (r / v against "
                                     "the curvature asked for), faded in above a crawl; none on a kinematic car",
                            lo=0.0, hi=10.0, span=(0.0, 3.0))
    speed_gain: float = param(4.0, doc="pedal per unit of relative speed error (error / target speed)", lo=0.0,
                              hi=1e3, span=(0.0, 20.0))
    speed_integral: float = param(2.0, unit="1/s", doc="integral gain of the relative speed error", lo=0.0, hi=1e3,
                                  span=(0.0, 20.0))
    brake_share: float = param(0.3, doc="brake pedal per unit of negative pedal demand (the brakes are stronger "
                                        "than the engine)", lo=0.0, hi=10.0, span=(0.0, 2.0))
    decel_gain: float = param(0.5, doc="brake pedal per g of deceleration error", lo=0.0, hi=100.0,
                              span=(0.0, 5.0))
    decel_integral: float = param(8.0, unit="1/s", doc="integral gain of the deceleration error (per g)",
                                  lo=0.0, hi=1e3, span=(0.0, 50.0))
    upshift: float = param(0.93, doc="manual cars: shift up above this share of the rev limit (at full throttle)",
                           lo=0.1, hi=1.0, span=(0.5, 1.0))
    cruise: float = param(0.5, doc="manual cars holding a speed: shift up early into the highest gear that gives the "
                                   "drive asked for with at most this throttle (0: only at upshift)", lo=0.0, hi=1.0,
                          span=(0.0, 1.0))
    downshift: float = param(0.35, doc="manual cars: shift down below this share of the rev limit (when the "
                                       "lower gear stays below the upshift speed)", lo=0.0, hi=0.9,
                             span=(0.0, 0.7))


def _f(default: float = 0.0, doc: str = ""):
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True)
class DriverSetup:
    """What the driver is asked to do (lengths in the car's unit, speeds in its unit per second)."""

    on: bool = _f(False, "a driver acts at all (else the inputs go to the car unchanged)")
    lateral: bool = _f(False, "follow the path with the steering")
    pedals: int = _f(PEDALS_NONE, "0: the pedals are the script's; 1: hold a speed; 2: hold a throttle position")
    throttle: float = _f(0.0, "the throttle position held (pedals = 2)")
    speed: float = _f(0.0, "the speed to hold when there is no profile [L/s]")
    profile_start: int = _f(0, "first track row of the speed profile")
    profile_count: int = _f(0, "rows of the speed profile (0: the constant speed)")
    profile_by_distance: bool = _f(False, "the profile's keys are distances along the path, else times")
    path_start: int = _f(0, "first track row of the path")
    path_count: int = _f(0, "rows of the path (0: no path)")
    closed: bool = _f(False, "the path is closed (a circle): its end joins its start")
    until_time: float = _f(math.inf, "the trigger: from this time on [s] ...")
    until_distance: float = _f(math.inf, "... or from this distance along the path on [L]")
    after_throttle: int = _f(AFTER_CONTINUE, "then the pedals: 0 go on, 1 hold, 2 release, 3 decelerate")
    after_steer: int = _f(0, "then the steering: 0 go on following, 1 hold")
    decel: float = _f(0.0, "the deceleration to hold (after_throttle = 3) [L/s^2]")
    end_time: float = _f(math.inf, "the driver hands every control back from this time on [s]")
    shift: bool = _f(False, "shift gears by the rpm rule (manual cars)")
