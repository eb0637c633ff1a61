"""SPEC 2: one compiled implementation; a batch of variants equals each variant run alone."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DT, keys, preset, record, shifting_driver, stack_inputs

from physics import ParamError, Simulation

PEAK_TORQUES = [250.0, 300.0, 350.0, 400.0, 450.0]  # [N m] engine.peak_torque variants
SECONDS = 8.0
RTOL = 1e-12


SHIFTING = shifting_driver([3.0])


def drive(t, sim):
    """Pull away, shift to 2nd at 3 s, a left turn from 5 s, braking from 7 s; the same for every car."""
    if t >= 7.0:
        u = keys("brake", steer=0.3)
    elif t >= 5.0:
        u = keys("throttle", steer=0.3)
    else:
        u = SHIFTING(t, sim)
    return stack_inputs([u] * sim.n)


@pytest.fixture(scope="module")
def batch_and_alone():
    sedan = preset("manual003")
    variants = [sedan.with_value("engine.peak_torque", torque) for torque in PEAK_TORQUES]
    batch = record(Simulation(variants, dt=DT), SECONDS, drive)
    alone = [record(Simulation(v, dt=DT), SECONDS, drive).car(0) for v in variants]
    return batch, alone


def test_the_variants_differ(batch_and_alone):
    batch, _ = batch_and_alone
    # At full throttle the torque curve scales with its peak: the batch really holds different cars.
    k = int(round(1.0 / DT))
    assert np.all(batch.throttle[k] == 1.0)
    assert np.all(np.diff(batch.engine_torque[k]) > 0)
    assert len(np.unique(batch.x[-1])) == len(PEAK_TORQUES)


def test_a_batch_matches_each_car_run_alone(batch_and_alone, record_property):
    batch, alone = batch_and_alone
    identical = True
    for i, single in enumerate(alone):
        for channel, values in single.items():
            together = batch[channel][:, i]
            assert np.allclose(together, values, rtol=RTOL, atol=1e-12), f"car {i}, channel {channel}"
            identical &= bool(np.array_equal(together, values))
    record_property("bit_identical", identical)
    print(f"batch vs alone bit-identical: {identical}")


@pytest.mark.parametrize("other", ["teaching", "classic", "parking"])
def test_mixing_kinds_in_one_batch_is_refused(other):
    # teaching: another model kind; classic: the same kind, another drivetrain; parking: pixels.
    base = "sedan" if other != "parking" else "teaching"
    with pytest.raises(ParamError):
        Simulation([preset(base), preset(other)], dt=DT)


def test_replacing_parameters_of_another_kind_mid_run_is_refused():
    sim = Simulation(preset("manual003"), n=2, dt=DT)
    sim.step()
    with pytest.raises(ValueError):
        sim.set_cars([preset("classic")] * 2)
    with pytest.raises(ValueError):
        sim.set_cars([preset("manual003")] * 3)
