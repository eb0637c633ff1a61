"""003's two bugs as variants of the model, put back through physics.build_kernel for the seam tests.

Each variant replaces the subsystem function that carries the fix; the kernels are built once per
session (and cached on disk), shared by tests/physics/test_bugs.py and tests/workbench/test_bug_scripts.py.
"""

from __future__ import annotations

from functools import cache

from physics import Kernel, build_kernel


def accel_stop_rule(speed, accel, drive_force, stop_speed, weight):
    """003's clutch-stop bug: the stop rule compares the acceleration instead of the speed."""
    return abs(accel) < stop_speed and abs(drive_force) <= 1e-3 * weight


def full_tyre_forces(kinematic):
    """003's full-lock stall, part 1: the tyre forces act fully at a crawl."""
    return 1.0


def yaw_only_bicycle(vx, tan_d, lr, wheelbase):
    """003's full-lock stall, part 2: the low-speed bicycle sets only the yaw rate (no lateral velocity)."""
    return 0.0 * vx, vx * tan_d / wheelbase


CLUTCH_STOP = {"standstill.stop_mask": accel_stop_rule}
FULL_LOCK = {"blend.tyre_force_weight": full_tyre_forces, "blend.kinematic_motion": yaw_only_bicycle}
HALVES = {"tyre_force_weight": {"blend.tyre_force_weight": full_tyre_forces},
          "kinematic_motion": {"blend.kinematic_motion": yaw_only_bicycle}}


@cache
def _kernel(name: str) -> Kernel:
    variants = {"clutch_stop": CLUTCH_STOP, "full_lock": FULL_LOCK, **HALVES}[name]
    return build_kernel(variants, cache=True)


def clutch_stop_kernel() -> Kernel:
    return _kernel("clutch_stop")


def full_lock_kernel() -> Kernel:
    return _kernel("full_lock")


def half_kernel(half: str) -> Kernel:
    """Only one half of the full-lock bug: ``tyre_force_weight`` or ``kinematic_motion``."""
    return _kernel(half)
