"""003: below a speed band the dynamic car follows the kinematic bicycle, blended smoothly."""

from __future__ import annotations

import math

from .jit import scalar


@scalar
def kinematic_weight(speed, low, high):
    """1 below ``low`` (fully kinematic), 0 above ``high``, a smoothstep between (no jump, no kink).

    ``speed`` is a magnitude (>= 0).
    """
    s = min(max((speed - low) / (high - low), 0.0), 1.0)
    return 1.0 - s * s * (3.0 - 2.0 * s)


@scalar
def tyre_force_weight(kinematic):
    """Share of the tyres' forces that acts on the car.

    In the kinematic regime slip angles are meaningless (atan2 of a tiny forward speed), so the
    tyre forces fade out with the blend; letting them act at a crawl is 003's full-lock stall.
    """
    return 1.0 - kinematic


@scalar
def kinematic_motion(vx, tan_delta, lr, wheelbase):
    """Lateral velocity and yaw rate of the centre of mass in the kinematic bicycle (001, CoM form).

    ``vx`` is the centre of mass's forward speed v cos(beta), which is also the rear axle's speed:
    vy = v sin(beta) = vx lr tan(delta) / L and r = v cos(beta) tan(delta) / L = vx tan(delta) / L.
    """
    curvature = tan_delta / wheelbase
    return vx * lr * curvature, vx * curvature



@scalar
def pull(dx, dy, limit):
    """The kinematic share's velocity step (dx, dy) towards the kinematic path, at most ``limit`` long.

    The kinematic bicycle's velocity is where rolling tyres hold the car, and the tyres hold it
    there with their grip: a car sliding sideways or spinning as it slows into the band is brought
    onto the kinematic path at most as fast as mu g allows, instead of in one frame. Driving on the
    path, the step is the path's own turn (v^2 / R at most, small below the band) and the limit is
    not reached.
    """
    size = math.hypot(dx, dy)
    scale = limit / size if size > limit else 1.0
    return dx * scale, dy * scale


@scalar
def limited(d, limit):
    """``d`` clipped to [-limit, limit]: the kinematic share's yaw-rate step, at most what the grip allows."""
    return min(max(d, -limit), limit)
