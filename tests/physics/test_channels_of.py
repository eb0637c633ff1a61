"""channels_of: what a view of one car lists. A channel left out must be one the car never moves."""

import numpy as np
import pytest

from physics import records
from physics.presets import load_preset, preset_names
from physics.simulation import Simulation
from physics.telemetry import channel_names, channels_of


def _random_drive(params, n=8, frames=1800, seed=5):
    """Random holds of every key, changed every half second (gear keys tapped now and then)."""
    rng = np.random.default_rng(seed)
    inputs = np.zeros((frames, n), dtype=records.INPUTS)
    for key in ("throttle", "brake", "left", "right", "clutch", "handbrake", "gear_up", "gear_down", "start"):
        share = 0.5 if key in ("throttle", "left", "right") else 0.12
        holds = rng.random((frames // 60 + 1, n)) < share
        inputs[key] = np.repeat(holds, 60, axis=0)[:frames]
    for key in ("gear_up", "gear_down"):
        inputs[key] &= rng.random((frames, n)) < 0.02
    return Simulation(params, n=n).run(inputs)


@pytest.mark.parametrize("name", preset_names())
def test_a_channel_left_out_never_moves_on_that_car(name):
    params = load_preset(name).params
    shown = {i.name for i in channels_of(params)}
    telemetry = _random_drive(params)
    for channel in set(channel_names(params.model.unit)) - shown:
        values = telemetry[channel]
        assert np.all(values == values.flat[0]), (name, channel, float(values.min()), float(values.max()))


def test_each_kind_of_car_lists_what_it_has():
    kinematic = {i.name for i in channels_of(load_preset("parking").params)}
    assert {"rpm", "slip_front", "fy_rear", "roll", "load_fl"}.isdisjoint(kinematic)
    assert {"speed", "steer", "curvature", "x", "y"} <= kinematic
    single = {i.name for i in channels_of(load_preset("sedan_single_track").params)}
    assert {"rpm", "slip_front", "slip_ratio_rear", "fy_rear", "tcs_active"} <= single
    assert {"roll", "esc_active", "load_fl"}.isdisjoint(single)
    four = {i.name for i in channels_of(load_preset("sedan").params)}
    assert {"roll", "esc_active", "load_fl", "slip_angle_rr", "rpm"} <= four
    everything = channel_names(load_preset("sedan").params.model.unit)
    assert [n for n in everything if n in four] == [i.name for i in channels_of(load_preset("sedan").params)]
