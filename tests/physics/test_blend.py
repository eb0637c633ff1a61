"""003: below a speed band the dynamic car follows the kinematic bicycle; the switch has no jump."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DT, keys, max_step, preset, record, stack_inputs

from physics import Simulation, build_kernel

STEERS = [0.2, 0.5, 1.0]  # share of full lock, one car of the batch each
SWEEP_THROTTLE = 0.7  # a gentle pull-away: about 0.5 s through the band
SWEEP_SECONDS = 7.0
CHANNELS = ["yaw_rate", "vy", "accel_lat", "beta", "slip_front", "slip_rear", "fy_front", "fy_rear"]
JUMP_FACTOR = 3.0  # the largest step inside the band is at most 3x the largest just outside it
MARGIN = 1.0  # [m/s] "just outside": this far below and above the band


def sweep(kernel=None) -> tuple[object, object]:
    p = preset("manual003")
    sim = Simulation(p, n=len(STEERS), dt=DT, kernel=kernel)
    run = record(sim, SWEEP_SECONDS, stack_inputs([keys(steer=s, throttle_pedal=SWEEP_THROTTLE) for s in STEERS]))
    return p, run


@pytest.fixture(scope="module")
def swept():
    return sweep()


def band_masks(run, p):
    low, high = p.model.blend_low, p.model.blend_high
    speed = run.speed
    inside = (speed >= low) & (speed <= high)
    outside = ((speed >= low - MARGIN) & (speed < low)) | ((speed > high) & (speed <= high + MARGIN))
    return inside, outside


def jump_ratio(run, p, channel: str) -> float:
    """Largest frame-to-frame step of ``channel`` inside the blend band over the largest just outside."""
    inside, outside = band_masks(run, p)
    assert inside.sum() > 20 and outside.sum() > 40, "the sweep must cross the band slowly"
    reference = max_step(run[channel], outside)
    assert reference > 0.0
    return max_step(run[channel], inside) / reference


def test_the_sweep_crosses_the_band(swept):
    p, run = swept
    for i in range(len(STEERS)):
        car = run.car(i)
        assert car.speed[0] == 0.0 and car.speed[-1] > p.model.blend_high + MARGIN
        assert np.all(np.diff(car.speed) >= 0.0)


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("index", range(len(STEERS)), ids=[f"steer{s}" for s in STEERS])
def test_no_jump_through_the_blend_band(swept, index, channel):
    p, run = swept
    assert jump_ratio(run.car(index), p, channel) <= JUMP_FACTOR


@pytest.mark.parametrize("index", range(len(STEERS)), ids=[f"steer{s}" for s in STEERS])
def test_kinematic_weight_goes_from_one_to_zero_continuously(swept, index):
    p, run = swept
    car = run.car(index)
    w = car.kinematic_weight
    assert np.all(w[car.speed <= p.model.blend_low] == 1.0)
    assert np.all(w[car.speed >= p.model.blend_high] == 0.0)
    assert np.all(np.diff(w) <= 0.0), "the speed only rises, so the weight only falls"
    assert np.abs(np.diff(w)).max() <= 0.1
    assert ((w > 0.0) & (w < 1.0)).sum() >= 20


def hard_switch(speed, low, high):
    """A blend that is no blend: kinematic below the middle of the band, dynamic above."""
    return 1.0 if abs(speed) < 0.5 * (low + high) else 0.0


def test_the_jump_check_catches_a_hard_switch():
    # The same sweep on the model with the blend replaced by a switch in the middle of the band must fail the check.
    p, run = sweep(build_kernel({"blend.kinematic_weight": hard_switch}, cache=True))
    ratios = {channel: max(jump_ratio(run.car(i), p, channel) for i in range(len(STEERS))) for channel in CHANNELS}
    # A switch shows most in the lateral acceleration (about 30x); vy and the slip angles about 3-5x.
    assert ratios["accel_lat"] > 10 * JUMP_FACTOR
    assert ratios["vy"] > JUMP_FACTOR


def test_the_energy_share_is_finite_where_squares_of_speeds_vanish():
    """A car creeping towards rest with the stop rule off reaches speeds whose squares are 0 (vx * vx is 0 below
    1.5e-162), or whose path's energy rounds to 0 on a light car: the share is 1 there (nothing to keep), not 0/0."""
    import math

    from physics import blend

    for vx in (1e-170, 2.3e-162, -2.3e-162):
        share = blend.energy_share(vx, vx / 2, vx / 3, 1.0, 1e-4, 0.0, -1e-3)
        assert math.isfinite(share) and 0.0 <= share <= 1.0, (vx, share)
    assert blend.energy_share(2.3e-162, 1.15e-162, 6.9e-163, 1.0, 1e-4, 0.0, -1e-3) == 1.0
    assert blend.energy_share(20.0, 1.0, 0.5, 1500.0, 2500.0, 1e5, 10.0) < 1.0  # an ordinary case still limits
