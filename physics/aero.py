"""002: aerodynamic drag and rolling resistance."""

from __future__ import annotations

import numpy as np


def drag_constant(cd, frontal_area, air_density):
    """C_drag = 0.5 Cd A rho (002) [N s^2/m^2]."""
    return 0.5 * cd * frontal_area * air_density


def drag(vx, vy, c_drag):
    """F_drag = -C_drag v |v| (002), as car-frame components [N]."""
    speed = np.hypot(vx, vy)
    return -c_drag * vx * speed, -c_drag * vy * speed


def rolling(v, c_rr):
    """F_rr = -C_rr v (002) [N], along the wheels' rolling direction."""
    return -c_rr * v
