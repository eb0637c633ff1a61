"""001: the kinematic bicycle model, in its rear-axle and centre-of-mass forms."""

from __future__ import annotations

from . import approx
from .jit import scalar


@scalar
def slip_angle(tan_delta, lr, wheelbase):
    """Body slip angle at the centre of mass: beta = atan(lr tan(delta) / L) (001, Rajamani 2.2)."""
    return approx.atan(lr * tan_delta / wheelbase)


@scalar
def yaw_rate(speed, tan_delta, wheelbase, beta):
    """Yaw rate of a car whose reference point moves at ``speed`` along heading + beta.

    Rear axle (beta = 0): v tan(delta) / L. Centre of mass: v cos(beta) tan(delta) / L (001).
    A negative speed turns the other way; a stopped car cannot rotate.
    """
    return speed * approx.cos(beta) * tan_delta / wheelbase


@scalar
def rear_axle_radius(delta, wheelbase):
    """Turning radius of the rear axle, R = L / tan(delta) (001); infinite when straight."""
    return wheelbase / approx.tan(delta)


@scalar
def com_radius(delta, wheelbase, lr):
    """Turning radius of the centre of mass, sqrt(lr^2 + R^2) (001)."""
    return approx.hypot(lr, rear_axle_radius(delta, wheelbase))
