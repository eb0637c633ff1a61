"""The thin single step: Simulation.step against the checked kernel call, the frames it hands out, and what it allocates.

Simulation.step calls the compiled block directly with arguments checked once, reads an Inputs' own
record, and hands out telemetry frames from preallocated blocks. These tests hold it to the checked
path (Kernel.run with fresh arrays, as a step was made before) bit for bit, and to its promises.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from allocations import steps_that_allocate
from helpers import DT, preset

from physics import ANALOG, KEYS, Inputs, NonFiniteError, Simulation, records
from physics.inputs import ANALOG_FIELDS, input_record

STEPS = 300
PRESETS = ("sedan", "classic", "parking")


def _random_frames(rng: np.random.Generator, steps: int) -> list[tuple[frozenset, dict]]:
    """Keys and analog overrides per frame: throttle mostly held, steering and the rest now and then."""
    frames = []
    for _ in range(steps):
        held = {key for key in KEYS if rng.random() < (0.7 if key == "throttle" else 0.15)}
        analog = {name: float(rng.uniform(-1.0 if name == "steer" else 0.0, 1.0)) for name in ANALOG
                  if rng.random() < 0.2}
        if rng.random() < 0.05:
            analog["gear"] = int(rng.integers(-1, 4))
        frames.append((frozenset(held), analog))
    return frames


def _plain(u: Inputs) -> Inputs:
    """The same inputs as plain Inputs with arrays of their own (no record behind them)."""
    return Inputs(**{f.name: np.array(getattr(u, f.name)) for f in fields(Inputs)})


def _checked_steps(params, frames) -> np.ndarray:
    """Telemetry of ``frames`` stepped as before: per frame, a fresh INPUTS record filled field by field and
    a fresh telemetry record, through Kernel.run with every argument checked."""
    sim = Simulation(params, n=1, dt=DT)
    out = np.zeros((len(frames), 1), dtype=records.TELEMETRY)
    for k, (held, analog) in enumerate(frames):
        u = _plain(Inputs.from_keys(1, held, **analog))
        row = np.empty((1, 1), dtype=records.INPUTS)
        for name in records.INPUTS.names:
            row[0][name] = getattr(u, name)
        telemetry = np.empty((1, 1), dtype=records.TELEMETRY)
        sim.kernel.run(sim.car.records, sim.state.view(np.ndarray), row, telemetry, DT, k, False, None, check=True)
        out[k] = telemetry[0]
    return out


@pytest.mark.parametrize("name", PRESETS)
def test_every_way_of_giving_inputs_steps_the_same_bits_as_the_checked_kernel_call(name):
    params = preset(name)
    frames = _random_frames(np.random.default_rng(7), STEPS)
    expected = _checked_steps(params, frames)
    ways = {
        "recorded Inputs": lambda held, analog: Inputs.from_keys(1, held, **analog),
        "plain Inputs": lambda held, analog: _plain(Inputs.from_keys(1, held, **analog)),
        "(N,) records": lambda held, analog: input_record(Inputs.from_keys(1, held, **analog))[0].copy(),
        "(1, N) records": lambda held, analog: input_record(Inputs.from_keys(1, held, **analog)).copy(),
    }
    for way, make in ways.items():
        sim = Simulation(params, n=1, dt=DT)
        got = np.stack([sim.step(make(held, analog)).records.copy() for held, analog in frames])
        assert got.tobytes() == expected.tobytes(), way


def test_one_inputs_changed_in_place_between_steps_is_read_anew_each_step():
    params = preset("sedan")
    frames = _random_frames(np.random.default_rng(3), 200)
    expected = _checked_steps(params, frames)
    sim, u = Simulation(params, n=1, dt=DT), Inputs.idle(1)
    got = []
    for held, analog in frames:
        fresh = Inputs.from_keys(1, held, **analog)
        for f in fields(Inputs):
            getattr(u, f.name)[:] = getattr(fresh, f.name)  # the arrays written in place
        got.append(sim.step(u).records.copy())
    assert np.stack(got).tobytes() == expected.tobytes()


def test_an_inputs_field_assigned_a_new_array_is_what_the_step_reads():
    a, b = Simulation(preset("sedan"), n=1, dt=DT), Simulation(preset("sedan"), n=1, dt=DT)
    u = Inputs.idle(1)
    u.throttle = np.ones(1, dtype=bool)  # no longer the record's field: the step must read this array
    for _ in range(60):
        got, want = a.step(u), b.step(Inputs.from_keys(1, {"throttle"}))
    assert got.records.tobytes() == want.records.tobytes() and got.speed[0] > 0


def test_inputs_for_another_batch_size_are_refused():
    sim = Simulation(preset("sedan"), n=2, dt=DT)
    with pytest.raises(ValueError, match="1 cars' inputs for a batch of 2"):
        sim.step(Inputs.from_keys(1, {"throttle"}))
    with pytest.raises(ValueError, match="1 cars' inputs for a batch of 2"):
        sim.step(_plain(Inputs.from_keys(1, {"throttle"})))


def test_a_wrong_batch_size_is_refused_after_right_inputs_and_none():
    """The step checks an Inputs' record's shape only when the record is new to it: a wrong one after a right
    one, after none, or after the same wrong one is refused each time, and the right one still steps."""
    sim = Simulation(preset("sedan"), n=2, dt=DT)
    right, wrong = Inputs.from_keys(2, {"throttle"}), Inputs.from_keys(1, {"throttle"})
    for given in (right, wrong, None, wrong, wrong, right, right, wrong):
        if given is wrong:
            with pytest.raises(ValueError, match="1 cars' inputs for a batch of 2"):
                sim.step(given)
        else:
            sim.step(given)
    reference = Simulation(preset("sedan"), n=2, dt=DT)
    for given in (right, None, right, right):
        reference.step(given)
    assert sim.frame == 4 and sim.telemetry.records.tobytes() == reference.telemetry.records.tobytes()


KEEPERS = {  # what a caller may keep of a frame; each must keep what it saw
    "the frame": lambda t: (t, lambda: t.records.tobytes()),
    "a channel": lambda t: (t.rpm, None),
    "the records": lambda t: (t.records, None),
    "one car's record": lambda t: (t.records[0], None),
    "the values": lambda t: (t.values, None),
    "the flat values": lambda t: (t.flat, None),
}


@pytest.mark.parametrize("keeper", KEEPERS)
def test_a_kept_frame_is_not_changed_by_the_steps_after_it(keeper):
    sim = Simulation(preset("sedan"), n=1, dt=DT)
    kept, then = [], []
    for k in range(40):
        telemetry = sim.step(Inputs.from_keys(1, {"throttle", "left"} if k % 10 < 6 else {"brake"}))
        if k % 3 == 0:  # some frames kept, the others let go (their records are written again)
            held, _ = KEEPERS[keeper](telemetry)
            kept.append(held)
            then.append((telemetry.records.tobytes(), float(telemetry.rpm[0])))
    for k, held in enumerate(kept):
        raw, rpm = then[k]
        if isinstance(held, np.ndarray) and held.dtype == np.float64 and held.size > 1:
            assert held.tobytes() == raw, k
        elif isinstance(held, np.ndarray) and held.dtype == np.float64:
            assert held[0] == rpm, k
        elif hasattr(held, "records"):
            assert held.records.tobytes() == raw and held.rpm[0] == rpm, k
        else:
            assert held.tobytes() == raw, k
    assert sim.telemetry.records.tobytes() == telemetry.records.tobytes()


def test_frames_nobody_keeps_are_written_again_and_the_last_one_is_the_simulations():
    sim = Simulation(preset("sedan"), n=1, dt=DT)
    u = Inputs.from_keys(1, {"throttle"})
    seen = {id(sim.step(u).records) for _ in range(50)}
    assert len(seen) <= 4  # a ring of records, not one per frame
    last = sim.step(u)
    assert sim.telemetry is last and sim.channel("rpm")[0] == last.rpm[0]


def test_the_guard_stops_a_non_finite_value_of_a_single_car_and_the_next_steps_go_on():
    sim = Simulation(preset("sedan"), n=1, dt=DT)
    for _ in range(30):
        last = sim.step(Inputs.from_keys(1, {"throttle"}))
    before = last.records.tobytes()
    sim.state.vx[0] = np.nan
    with pytest.raises(NonFiniteError, match=r"^channel 'speed' of car 0 became non-finite at frame 30$"):
        sim.step(Inputs.from_keys(1, {"throttle"}))
    assert sim.frame == 30 and sim.telemetry is last and last.records.tobytes() == before
    sim.reset()
    for _ in range(5):  # the fault table is clear again: the car steps from rest
        telemetry = sim.step(Inputs.from_keys(1, {"throttle"}))
    assert sim.frame == 5 and np.isfinite(telemetry.values).all()






def test_a_step_allocates_no_array():
    sim = Simulation(preset("sedan"), n=1, dt=DT)
    u = Inputs.from_keys(1, {"throttle", "left"})
    sim.step(u)
    allocating = steps_that_allocate(lambda: sim.step(u))
    assert allocating == 0


def test_recorded_inputs_are_plain_inputs_when_copied_and_compare_as_inputs():
    import copy
    import pickle

    u = Inputs.from_keys(1, {"throttle"}, steer=0.5)
    assert u == _plain(u) and _plain(u) == u and repr(u) == repr(_plain(u))
    for other in (copy.copy(u), copy.deepcopy(u), pickle.loads(pickle.dumps(u))):
        assert type(other) is Inputs and other == u and input_record(other) is None
    assert input_record(u)[0][f"{ANALOG_FIELDS['steer']}_value"] == 0.5
