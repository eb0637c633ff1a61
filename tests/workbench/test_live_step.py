"""The window's step, LiveSession.step: its keys written in place into one record, bit for bit what a
fresh Inputs per frame gave, and no array made per frame."""

from __future__ import annotations

import numpy as np
import pytest
from allocations import steps_that_allocate

from physics import ANALOG, KEYS, Inputs, Simulation, load_preset
from physics.records import TELEMETRY
from workbench import bench
from workbench.runs.live import SNAPSHOT_EVERY, LiveSession


def _frames(seed: int, steps: int) -> list[tuple[set[str], dict[str, float]]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        held = {key for key in KEYS if rng.random() < (0.7 if key == "throttle" else 0.15)}
        analog = {name: float(rng.uniform(-1.0 if name == "steer" else 0.0, 1.0)) for name in ANALOG
                  if rng.random() < 0.2}
        out.append((held, analog))
    return out


@pytest.mark.parametrize("preset", ["sedan", "classic", "parking"])
def test_the_live_step_gives_the_bits_of_a_fresh_inputs_per_frame(preset):
    frames = _frames(11, 300)
    session = LiveSession(preset)
    reference = Simulation(load_preset(preset).params, n=1, dt=session.dt)
    want = np.zeros((len(frames), 1), dtype=TELEMETRY)
    for k, (held, analog) in enumerate(frames):
        got = session.step(held, analog)
        want[k] = reference.step(Inputs.from_keys(1, held, **analog)).records
        assert got.records.tobytes() == want[k].tobytes(), k
    for name in ("speed", "yaw_rate", "rpm"):
        assert session.log.column(name).tobytes() == np.ascontiguousarray(want[:, 0][name]).tobytes(), name
    # the history replays to the same bits (what driving on from a past frame relies on)
    assert session.drive_from(len(frames) - 1) is not None


def test_keys_held_on_without_an_override_reuse_the_record_and_an_override_is_cleared_after_it():
    """The record is written only when the keys or the overrides change: a frame with an override, or an
    unknown key, must not leave its bytes for the next frame of the same keys."""
    plan = [({"throttle"}, None), ({"throttle"}, None), ({"throttle"}, {"steer": 0.3}), ({"throttle"}, None),
            ({"throttle"}, None), ({"throttle"}, {"brake_pedal": 0.5}), ({"throttle"}, {}), ({"brake"}, None),
            ({"warp"}, None), ({"brake"}, None), ({"brake", "warp"}, None), ({"brake"}, None)]
    session = LiveSession("sedan")
    reference = Simulation(load_preset("sedan").params, n=1, dt=session.dt)
    stepped = 0
    for held, analog in plan:
        if "warp" in held:
            with pytest.raises(ValueError, match="unknown"):
                session.step(held, analog)
            continue
        got = session.step(held, analog)
        want = reference.step(Inputs.from_keys(1, held, **(analog or {})))
        assert got.records.tobytes() == want.records.tobytes(), (stepped, held, analog)
        stepped += 1
    assert stepped == len(plan) - 2


def test_an_unknown_key_or_override_changes_nothing():
    session = LiveSession("sedan")
    session.step({"throttle"})
    for keys, analog in (({"warp"}, None), ({"throttle"}, {"boost": 1.0})):
        with pytest.raises(ValueError, match="unknown"):
            session.step(keys, analog)
        assert session.frame == 1 and session.history.frames == 1 and session.log.frames == 1


def test_the_live_step_allocates_no_array_per_frame():
    session = LiveSession("sedan")
    session.step({"throttle"})
    held = [{"throttle", "left"}, {"throttle"}, {"brake", "right"}]
    frame = iter(range(10**6))
    allocating = steps_that_allocate(lambda: session.step(held[next(frame) % 3], {"steer": 0.25}))
    # a copy of the state every SNAPSHOT_EVERY frames, and the first frame of each set of keys not held before
    # (its record's bytes are made once)
    assert allocating <= 1000 // SNAPSHOT_EVERY + 2


def test_the_bench_measures_the_window_step():
    assert bench.window_step_us("sedan", steps=10, repeats=1) > 0
    assert bench.CPU["window step sedan"] > 0
