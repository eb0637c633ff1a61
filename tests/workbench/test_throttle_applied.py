"""The ``throttle_applied`` channel: the throttle the engine gets, the pedal less the rev limiter's and the driver aids'
cuts (physics.step.grip_drive), so a cut shows as a channel and not only as a lower engine torque."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from physics import load_preset
from workbench.runs.replay import replay
from workbench.scripts.format import load_script, resolve_script
from workbench.scripts.program import compile_script


def _run(script: str, preset: str, **values):
    """``script`` replayed on ``preset`` with ``values`` (parameter paths, dots as double underscores) set."""
    car = load_preset(preset)
    params = car.params
    for path, value in values.items():
        params = params.with_value(path.replace("__", "."), value)
    (result,) = replay([compile_script(load_script(resolve_script(script)), preset=replace(car, params=params))])
    return result


def _limited(result, params) -> np.ndarray:
    """The pedal through the rev limiter alone (physics.engine.limited_throttle) at each frame's starting rpm."""
    share = np.minimum(np.maximum((params.get("engine.rev_limit") - result.column("rpm"))
                                  / params.get("engine.limiter_band"), 0.0), 1.0)
    return result.column("throttle") * share


def test_without_aids_it_is_the_pedal_through_the_rev_limiter():
    """The same launch with traction control off: the applied throttle is the limiter's closed form, bit for bit,
    and the run reaches the limiter (the closed form is tested where it cuts, not only where it is the pedal)."""
    params = load_preset("sedan_single_track").params.with_value("aids.tcs", 0)
    result = _run("tcs_launch", "sedan_single_track", aids__tcs=0)
    applied, limited = result.column("throttle_applied"), _limited(result, params)
    assert np.array_equal(applied, limited)
    pedal = result.column("throttle")
    assert (applied < pedal).any() and (applied == pedal).any()


def test_traction_control_s_cut_shows_beside_the_pedal():
    """With traction control the applied throttle is never above the limiter's, and below it only while the control
    acts (the pedal's channel is the pedal's)."""
    params = load_preset("sedan_single_track").params
    result = _run("tcs_launch", "sedan_single_track")
    applied, limited = result.column("throttle_applied"), _limited(result, params)
    assert (applied <= limited).all()
    cut = applied < limited
    assert cut.sum() > 100
    assert (result.column("tcs_active")[cut] == 1.0).all()


@pytest.mark.parametrize(("script", "preset"), [("full_lock_left", "sedan"), ("full_lock_left", "f1tenth"),
                                                ("full_lock_left", "manual003"), ("parking_full_lock", "parking")])
def test_it_is_finite_and_within_the_pedal_on_every_kind_of_car(script, preset):
    """A four-wheel car with stability control, a direct drive, the manual car without aids, the kinematic car."""
    result = _run(script, preset)
    applied, pedal = result.column("throttle_applied"), result.column("throttle")
    assert np.isfinite(applied).all() and (applied >= 0.0).all() and (applied <= pedal).all()
    assert (pedal > 0.0).any()


def _direct_drive(force: float = 8000.0):
    """The single-track sedan with a direct drive force in place of its engine, clutch and gearbox (aids kept)."""
    import re

    from physics.presets import Preset, cars_dir, parse_preset

    kept, skip = [], False
    for line in (cars_dir() / "sedan_single_track.toml").read_text().splitlines():
        match = re.match(r"^\[(\w+)\]", line)
        if match:
            skip = match.group(1) in ("engine", "clutch", "gearbox")
        if not skip:
            kept.append(line)
    kept.append(f"[drive]\nforce = {force}\npower = 0.0\nreverse_fraction = 0.5\n")
    return Preset("direct", None, parse_preset("\n".join(kept), "direct.toml"))


def test_a_direct_drive_s_applied_throttle_is_traction_control_s_and_none_reversing_on_the_brake():
    from workbench.scripts.format import parse_script

    launch = parse_script('[script]\nname = "launch"\npreset = "sedan"\nduration = 3.0\n'
                          '[[set]]\nat = 0.0\nthrottle_pedal = 1.0\n', "launch.toml")
    (result,) = replay([compile_script(launch, preset=_direct_drive(20000.0))])
    applied, pedal = result.column("throttle_applied"), result.column("throttle")
    cut = applied < pedal
    assert cut.sum() > 50 and (result.column("tcs_active")[cut] == 1.0).all() and (applied <= pedal).all()
    back = parse_script('[script]\nname = "back"\npreset = "sedan"\nduration = 3.0\n'
                        '[[set]]\nat = 0.0\nthrottle_pedal = 0.3\nbrake_pedal = 1.0\n', "back.toml")
    (result,) = replay([compile_script(back, preset=_direct_drive())])
    reversing = result.column("drive_force") < 0.0
    assert reversing.sum() > 100 and (result.column("throttle_applied")[reversing] == 0.0).all()
    assert (result.column("throttle")[reversing] > 0.0).all()
