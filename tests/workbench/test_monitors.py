"""Invariant monitors: each fires on the model with its fault put back, and none fires on a shipped script."""

from __future__ import annotations

import contextlib
import math

import faults
import numpy as np
import pytest

from physics import NonFiniteError, load_preset
from physics.presets import scripts_dir
from workbench.runs import monitors
from workbench.runs.monitors import check_results, frames_from_columns, frames_of_result, run_monitors
from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script


def _script(name: str, duration: float, holds: list[tuple[list[str], float, float]], params: str = "",
            preset: str = "manual003") -> str:
    """A scenario script; on 003's car by default, whose simple model the faults below patch."""
    text = f'[script]\nname = "{name}"\npreset = "{preset}"\nduration = {duration}\n'
    if params:
        text += f"[[set]]\nat = 0.0\nparams = {{ {params} }}\n"
    for keys, start, end in holds:
        text += f"[[hold]]\nkeys = {keys!r}\nfrom = {start}\nto = {end}\n".replace("'", '"')
    return text


SLIDE = _script("slide", 8.0, [(["throttle"], 0.0, 3.0), (["handbrake", "left"], 3.0, 4.5), (["brake"], 4.5, 8.0)])
ICE_BRAKE = _script("ice-brake", 8.0, [(["throttle"], 0.0, 5.0), (["brake"], 5.0, 8.0)],
                    ", ".join(f'"{k}" = {v}' for k, v in faults.ICE.items()))
CLUTCH_BRAKE = _script("clutch-brake", 8.0, [(["throttle"], 0.0, 3.0), (["clutch"], 3.0, 8.0), (["brake"], 3.5, 8.0)])
STEER_AT_REST = _script("steer-at-rest", 2.0, [(["left"], 0.0, 1.0)])


def _shipped(name: str) -> str:
    return (scripts_dir() / name).read_text(encoding="utf-8")


def fired(text: str, fault=None) -> set[str]:
    program = compile_script(parse_script(text))
    with fault() if fault is not None else contextlib.nullcontext():
        result = replay([program])[0]
    own = {m.name: m.tolerance for m in program.script.monitors if m.tolerance is not None}  # the script's room
    return {v.monitor for v in run_monitors(frames_of_result(result), tolerances=own)}


def test_every_monitor_has_a_description_and_a_tolerance():
    assert len(monitors.MONITORS) == 8
    for m in monitors.MONITORS:
        assert m.description and "\n" not in m.description
        assert m.tolerance >= 0 and m.tolerance_doc


def test_no_monitor_fires_on_a_shipped_script(shipped_alone):
    # As `carbench replay --monitors` judges them: every monitor, at a script's own tolerance where it gives one.
    assert check_results(shipped_alone, everything=True) == []


# (monitor, scenario, fault): the scenario is silent on the model and fires once the fault is put back.
CASES = [
    ("impossible_jerk", SLIDE, faults.blend_snap),
    ("impossible_jerk", ICE_BRAKE, faults.ungripped_brakes),
    ("impossible_jerk", _shipped("clutch_coast.toml"), faults.clutch_stop),
    ("lateral_balance", _shipped("full_lock_left.toml"), faults.full_lock_stall),
    ("energy_gain", _shipped("coast_down.toml"), faults.pushing_drag),
    ("clutch_flip", CLUTCH_BRAKE, faults.reversing_brake),
    ("rest_stays_rest", STEER_AT_REST, faults.idle_creep),
    ("rpm_range", _shipped("launch_shift.toml"), faults.no_rev_limiter),
    ("grip_limit", _shipped("lockup_dump.toml"), faults.meeting_past_the_grip),
]


@pytest.mark.parametrize(("monitor", "text", "fault"), CASES, ids=[f"{m}-{f.__name__}" for m, _, f in CASES])
def test_monitor_fires_with_its_fault_put_back(monitor, text, fault):
    assert fired(text) == set()
    assert monitor in fired(text, fault)


def test_a_non_finite_value_stops_the_run_before_it_reaches_a_channel():
    # The kernel's own guard refuses to write NaN, so the `finite` monitor's model-level check is that
    # the run stops naming the channel; the monitor itself is checked on synthetic telemetry below.
    program = compile_script(parse_script(_shipped("full_lock_left.toml")))
    with faults.slip_nan(), pytest.raises(NonFiniteError, match=r"channel .* of car 0 became non-finite at frame 0"):
        replay([program])


def test_brakes_on_ice_stop_at_the_grip_on_both_models():
    # 003's brakes ignored the road: 12 kN stopped the car on ice in about 37 m. Both models now stop
    # at mu g: the simple one by limiting the brakes to the road, the combined one by its wheels.
    for preset in ("manual003", "sedan"):
        text = ICE_BRAKE.replace('preset = "manual003"', f'preset = "{preset}"')
        program = compile_script(parse_script(text))
        result = replay([program])[0]
        frames = frames_of_result(result)
        braking = (frames["t"][:, 0] > 5.5) & (np.abs(frames["speed"][:, 0]) > 0.2)
        assert braking.sum() > 60, preset
        decel = -frames["accel_long"][braking, 0]
        assert decel.max() <= 0.1 * 9.81 * 1.05 + 0.5, (preset, decel.max())  # mu g, plus drag and rolling
        assert fired(text) == set(), preset


# -- the monitors on synthetic telemetry -----------------------------------------------------------

def _synthetic(frames: int = 50, **overrides) -> dict:
    sedan = load_preset("manual003").params  # 003's car: no wheel or engine inertia to account for
    channels = {c: np.zeros(frames) for c in ("t", "x", "y", "heading", "speed", "vx", "vy", "yaw_rate", "steer", "fx_front",
                                             "throttle", "brake", "clutch_pedal", "clutch", "handbrake", "gear", "rpm",
                                             "drive_force", "drag_force", "rolling_force", "fy_front", "fy_rear",
                                             "fx_rear", "kinematic_weight", "engine_torque", "wheel_front",
                                             "wheel_rear", "wheel_speed_fl", "wheel_speed_fr", "wheel_speed_rl",
                                             "wheel_speed_rr")}
    channels["load_front"] = channels["load_rear"] = np.full(frames, 0.5 * sedan.body.mass * sedan.model.gravity)
    channels["t"] = np.arange(frames) / 120.0
    channels["rpm"] = np.full(frames, 1000.0)
    channels.update(overrides)
    return {"columns": channels, "params": [[(0, sedan)]], "dt": 1 / 120.0}


def _run(name: str, **overrides):
    return monitors.get(name).run(frames_from_columns(**_synthetic(**overrides)))


def test_grip_limit_holds_a_single_track_axle_to_the_surface_under_it():
    # Half the rear axle's load as braking force is within the tyre's own mu (1.1) but not within
    # the ice under it (0.2): the monitor judges the road the axle stands on.
    car = load_preset("sedan_single_track").params
    n = 30
    load = np.full(n, 0.5 * car.body.mass * car.model.gravity)
    base = _synthetic(n)
    base["params"] = [[(0, car)]]
    cols = base["columns"]
    cols.update(load_front=load, load_rear=load, fx_rear=-0.5 * load, mu_front=np.full(n, 1.1))
    for mu, fires in ((1.1, False), (0.2, True)):
        cols["mu_rear"] = np.full(n, mu)
        found = monitors.get("grip_limit").run(frames_from_columns(**base))
        assert bool(found) == fires, (mu, found)


LARGE_AREA = """
[script]
name = "large-frontal-area"
preset = "PRESET"
duration = 3.0

[[set]]
at = 0.0
SET_GEAR
params = { "aero.frontal_area" = AREA, "aero.cd" = 1.0 }

[[hold]]
keys = ["throttle", "left"]
from = 0.0
to = 3.0
"""


@pytest.mark.parametrize(("preset", "area", "gear"), [("sedan", 1e4, True), ("sedan_single_track", 1e4, True),
                                                      ("f1tenth", 1000.0, False), ("manual003", 100.0, True)])
def test_lateral_balance_counts_the_airs_drag_across_the_car(preset, area, gear):
    """Frontal areas of 100 to 10,000 m^2, full throttle and left: at 2 m/s the air across the car took as much as the
    tyres held, and lateral_balance read 2.17 m/s^2 of tyre force against 0.85 of vx r at every dt. The tyres hold
    m a_y less the drag across the car in the motion's dynamic share, and the monitor counts it there; counted where
    the car is fully kinematic (f1tenth and manual003 at a crawl), it fired there instead."""
    text = LARGE_AREA.replace("PRESET", preset).replace("AREA", repr(area))
    program = compile_script(parse_script(text.replace("SET_GEAR", "gear = 1" if gear else ""), "area.toml"))
    (result,) = replay([program])
    assert monitors.get("lateral_balance").run(frames_of_result(result)) == []
    c = 0.5 * program.params.aero.cd * area * program.params.aero.air_density
    vx, vy, w = result.column("vx"), result.column("vy"), result.column("kinematic_weight")
    across = np.abs(c * vy * np.hypot(vx, vy)) / program.params.body.mass  # [m/s^2] the air's part: no rounding
    if preset.startswith("sedan"):  # fully dynamic, turning: the balance was judged with the air in it
        assert ((1.0 - w) * across).max() > 0.3
    else:  # held to a crawl by the air, fully kinematic, where its sideways drag moves nothing
        assert (w == 1.0).all() and across.max() > 0.1


LOW_GRAVITY = """
[script]
name = "low-gravity-full-lock"
preset = "PRESET"
duration = 6.0

[[set]]
at = 0.0
params = { "model.gravity" = GRAVITY }

[[hold]]
keys = ["left"]
from = 0.0
to = 6.0

[[hold]]
keys = ["throttle"]
from = 0.5
to = 6.0
"""


@pytest.mark.parametrize(("preset", "gravity"), [("tail_happy", 1.62), ("sedan", 2.5), ("sedan", 3.7),
                                                 ("sedan_single_track", 1.0)])
def test_lateral_balance_at_a_low_gravity_judges_only_motion_that_holds_still(preset, gravity):
    """At the Moon's or Mars's gravity, full lock and throttle: the allowance, 0.1 (g + |vx r|), is less than the
    0.5 m/s^2 of dvy/dt that counted as steady, and lateral_balance fired on a balance that held (tail_happy at
    1.62 m/s^2: 1.291 m/s^2 of tyre force against 1.792 of vx r, with dvy/dt at -0.499: their sum 1.293). Motion
    counts as steady where dvy/dt is below half the default allowance, too. (Each of these fired before.)"""
    text = LOW_GRAVITY.replace("PRESET", preset).replace("GRAVITY", repr(gravity))
    (result,) = replay([compile_script(parse_script(text, "low.toml"))])
    frames = frames_of_result(result)
    assert monitors.get("lateral_balance").run(frames) == []
    assert np.abs(result.column("yaw_rate")).max() > 0.3  # the case is there: the car turns hard


def test_synthetic_rest_is_silent_everywhere():
    assert run_monitors(frames_from_columns(**_synthetic())) == []


def test_finite_names_the_channel_and_frame():
    speed = np.zeros(50)
    speed[7] = np.nan
    (v,) = _run("finite", speed=speed)
    assert (v.frame, v.count) == (7, 1) and v.values[0][0] == "speed"


def test_jerk_fires_on_a_one_frame_sideways_stop():
    vy = np.where(np.arange(50) < 20, 2.5, 0.0)  # 2.5 m/s sideways, gone in one frame: -30 g
    speed = np.hypot(3.0, vy)
    (v,) = _run("impossible_jerk", vx=np.full(50, 3.0), vy=vy, speed=speed)
    assert v.frame == 19
    lateral = dict((what, value) for what, value, _ in v.values[2:3])
    assert lateral["lateral accel"] == pytest.approx(-300.0, rel=0.01)


def test_clutch_flip_sees_a_flip_through_zero():
    speed = np.concatenate([np.linspace(1.0, 0.2, 20), np.zeros(5), np.linspace(-0.2, -1.0, 25)])
    assert _run("clutch_flip", speed=speed, vx=speed) == []  # the clutch is not pressed
    (v,) = _run("clutch_flip", speed=speed, vx=speed, clutch_pedal=np.ones(50))
    assert v.frame == 25


def test_rpm_range_uses_the_tolerance():
    rpm, torque = np.full(50, 7600.0), np.full(50, 20.0)  # the engine's own torque holds it past the limit
    assert _run("rpm_range", rpm=rpm, engine_torque=torque) == []  # within 300 rpm of the 7,400 rpm limit
    assert monitors.get("rpm_range").run(frames_from_columns(**_synthetic(rpm=rpm, engine_torque=torque)),
                                         tolerance=100.0)


def _downshift(speed: float, torque: float, rising: bool = True) -> dict:
    """manual003 in 1st, the engine going from 7,500 to 8,200 rpm (or back down) while the road runs at ``speed``
    [m/s], with ``torque`` from the engine."""
    p = load_preset("manual003").params
    rpm = np.linspace(7500.0, 8200.0, 50)
    return {"rpm": rpm if rising else rpm[::-1], "engine_torque": np.full(50, torque), "gear": np.full(50, 1.0),
            "speed": np.full(50, speed), "vx": np.full(50, speed), "wheel_rear": np.full(50, speed / p.body.wheel_radius),
            "clutch": np.full(50, 1.0)}


def test_rpm_range_lets_the_wheels_turn_the_engine_past_the_limit_with_its_fuel_cut():
    p = load_preset("manual003").params
    turned = 30.0 / p.body.wheel_radius * p.gearbox.ratios[0] * p.gearbox.final_drive * 60.0 / (2.0 * math.pi)
    assert turned > 8500.0 > p.engine.rev_limit + 300.0  # 1st at 30 m/s turns the engine past 8,200 rpm
    assert _run("rpm_range", **_downshift(30.0, -60.0)) == []  # a downshift at speed: real, and not the model's
    (v,) = _run("rpm_range", **_downshift(30.0, 40.0))  # the engine's own torque past the limit: the limiter failed
    assert dict((what, value) for what, value, _ in v.values)["engine torque"] == 40.0
    # Rising faster than the wheels turn it: nothing in the car could do that.
    assert [v.monitor for v in _run("rpm_range", **_downshift(10.0, -60.0))] == ["rpm_range"]
    assert _run("rpm_range", **_downshift(10.0, -60.0, rising=False)) == []  # spinning down, clutch pressed


def test_rpm_range_reads_003_s_friction_against_the_gear_as_friction():
    """Found by `carbench hunt --seed 7002` on manual003, shrunk: a downshift to 1st at 31 m/s with the clutch pressed
    left the engine at 10,500 rpm, spinning down; reverse selected at speed, the car rolls against the gear, and 003's
    engine friction acts the other way (physics.engine.net_torque's ``turned_back``): +65 N m with the fuel cut. Read
    as fuel, the monitor fired. The combined model's engine torque has no such sign: positive past the limit is fuel."""
    falling = np.linspace(10300.0, 10000.0, 50)
    against = dict(rpm=falling, engine_torque=np.full(50, 65.0), gear=np.full(50, -1.0), vx=np.full(50, 31.0),
                   speed=np.full(50, 31.0))
    assert _run("rpm_range", **against) == []
    (v,) = _run("rpm_range", **dict(against, gear=np.full(50, 1.0)))  # with the gear: the engine's own torque
    assert v.frame == 0
    combined = _synthetic(**against)
    combined["params"] = [[(0, load_preset("sedan_single_track").params)]]
    assert load_preset("sedan_single_track").params.model.traction == "combined"
    assert [v.monitor for v in monitors.get("rpm_range").run(frames_from_columns(**combined))] == ["rpm_range"]
    frames = frames_of_result(replay([compile_script(parse_script(REVERSE_AT_SPEED))])[0])
    assert frames["gear"][-1, 0] == -1.0 and frames["vx"][-1, 0] > 25.0  # the case: reverse, rolling forwards
    assert run_monitors(frames, ["rpm_range"]) == []


REVERSE_AT_SPEED = _script("reverse selected at speed", 19.5, [
    (["throttle"], 0.0, 6.741667), (["clutch"], 6.908333, 6.966667), (["gear_up"], 6.975, 6.983333),
    (["throttle"], 11.216667, 16.166667), (["clutch"], 16.316667, 16.375), (["gear_down"], 16.358333, 16.366667),
    (["clutch"], 18.316667, 18.475), (["gear_down"], 18.358333, 18.366667), (["gear_down"], 18.466667, 18.475)])


def test_unknown_monitor_lists_the_known_ones():
    with pytest.raises(KeyError, match="impossible_jerk"):
        monitors.get("nope")


# -- [[monitor]] entries and `carbench replay --monitors` -----------------------------------------

ICE_MONITORED = ICE_BRAKE + '[[monitor]]\nname = "impossible_jerk"\n'
# A driver's mistake the model shows as it is: 1st gear at about 115 km/h with the clutch let go, and
# the wheels drive the engine far past its limit (the "money shift").
MONEY_SHIFT = (_script("money-shift", 9.0, [(["throttle"], 0.0, 7.0), (["clutch"], 7.0, 7.5), (["gear_down"], 7.2, 7.25)],
                       preset="sedan").replace("duration = 9.0\n", "duration = 9.0\n[[set]]\nat = 0.0\ngear = 2\n")
               + '[[monitor]]\nname = "rpm_range"\n')

# A full-lock circle judged with no room for the model's lateral balance (its own tolerance is 10%): it fires.
STRICT_BALANCE = _shipped("full_lock_left.toml").split("[[monitor]]")[0] + \
    '[[monitor]]\nname = "lateral_balance"\ntolerance = 0.0\n'


def test_a_downshift_at_speed_over_revs_the_engine_and_rpm_range_lets_it():
    program = compile_script(parse_script(MONEY_SHIFT))
    rpm = replay([program])[0].column("rpm")
    assert rpm.max() > program.params.engine.rev_limit + 300.0
    assert fired(MONEY_SHIFT) == set()


def test_monitor_entry_round_trips_and_is_parsed_strictly():
    from workbench.scripts.format import ScriptError

    script = parse_script(ICE_MONITORED + '[[monitor]]\nname = "rpm_range"\ntolerance = 50.0\n')
    assert [(m.name, m.tolerance) for m in script.monitors] == [("impossible_jerk", None), ("rpm_range", 50.0)]
    assert parse_script(script.to_toml()).monitors == script.monitors
    for bad, reason in (('name = "nope"', "unknown monitor 'nope'"), ('name = "finite"\nlimit = 1', "unknown key"),
                        ('tolerance = 1.0', "`name` is missing"), ('name = "finite"\ntolerance = -1', "negative")):
        with pytest.raises(ScriptError, match=reason):
            parse_script(ICE_BRAKE + "[[monitor]]\n" + bad + "\n", "x.toml")


def test_replay_fails_a_script_whose_monitor_fires(run_cli, tmp_path):
    path = tmp_path / "strict.toml"
    path.write_text(STRICT_BALANCE)
    done = run_cli("replay", path)
    assert done.returncode == 1, done.stderr
    assert "VIOLATED  lateral_balance  full-lock-left (car 0)" in done.stdout
    assert "vx r " in done.stdout and " deg/s" in done.stdout  # the yaw rate in its display unit
    path.write_text(ICE_MONITORED)  # the brakes on ice stop at the road's grip: nothing to report
    done = run_cli("replay", path)
    assert done.returncode == 0 and "monitors: no violation in 1 script" in done.stdout, done.stdout


def test_replay_monitors_flag_reports_json(run_cli, tmp_path):
    import json

    path = tmp_path / "strict.toml"
    path.write_text(STRICT_BALANCE.split("[[monitor]]")[0])
    assert run_cli("replay", path).returncode == 0  # no monitor asked for
    done = run_cli("replay", path, "--monitors", "--json")  # every monitor at its own tolerance
    assert done.returncode == 0 and json.loads(done.stdout)["monitors"] == []
    path.write_text(STRICT_BALANCE)
    done = run_cli("replay", path, "--monitors", "--json")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    assert doc["passed"] is False
    (v,) = doc["monitors"]
    assert v["monitor"] == "lateral_balance" and v["script"] == "full-lock-left" and v["frame"] > 0
    assert v["frames"] > 100  # every frame out of balance, not only the first
    assert {"name": "tyre and air lateral accel", "unit": "m/s^2"}.items() <= v["values"][0].items()
    assert {"name": "yaw rate", "unit": "deg/s"}.items() <= v["values"][-1].items()
    (run,) = replay([compile_script(parse_script(STRICT_BALANCE))])
    yaw = run.column("yaw_rate")[v["frame"]]
    assert yaw != 0.0 and v["values"][-1]["value"] == pytest.approx(math.degrees(yaw), rel=1e-12)  # deg/s, not rad/s
    clean = run_cli("replay", scripts_dir() / "clutch_coast.toml", "--monitors")
    assert clean.returncode == 0 and "monitors: no violation in 1 script" in clean.stdout


def test_a_variant_reaches_every_frame_that_calls_what_it_replaces_and_recompiles_no_other():
    """build_kernel recompiles the functions of physics.step and physics.four_wheel that call a replaced function
    (directly or through another that does) and keeps the others as compiled: a drag that pushes reaches the
    single-track and the four-wheel car alike, a tyre slip rule used only by 003's simple model leaves the
    four-wheel frame alone."""
    import physics.four_wheel as four_wheel
    import physics.step as step
    from physics import Inputs, Simulation, load_preset
    from physics.kernel import _recompile

    stale = _recompile(step, dict(vars(step)), {("aero", "resistances")})
    assert {"kinematic_frame", "dynamic_frame", "grip_frame", "car_frame"} <= stale
    assert "controls" not in stale and "frame_telemetry" not in stale
    wheels = _recompile(four_wheel, dict(vars(four_wheel)), {("aero", "resistances")} | {("_step", n) for n in stale})
    assert "four_wheel_frame" in wheels and "contact" not in wheels
    assert "four_wheel_frame" not in _recompile(four_wheel, dict(vars(four_wheel)), {("tyre", "slip")})
    kernel = faults.kernel("pushing_drag")  # drag and rolling resistance with their signs turned
    for name in ("sedan", "sedan_single_track", "manual003"):
        rolled = {}
        for k in (None, kernel):
            sim = Simulation(load_preset(name).params, n=1, dt=1 / 120, **({} if k is None else {"kernel": k}))
            sim.state.vx[:] = 10.0
            for corner in ("front", "rear", "fl", "fr", "rl", "rr"):
                sim.state[f"wheel_{corner}"][:] = 10.0 / load_preset(name).params.body.wheel_radius
            for _ in range(120):
                sim.step(Inputs.from_keys(1, {"clutch"}))
            rolled[k is None] = sim.state.vx[0]
        # Coasting a second on the clutch: drag slows the shipped car, the push speeds the variant up.
        assert rolled[True] < 10.0 < rolled[False], name


@pytest.mark.parametrize("preset", ["sedan", "sedan_single_track", "manual003"])
def test_a_parameter_edit_while_the_car_rolls_is_no_energy_gain(preset):
    """The mass set heavier while coasting (as an edit in the window, recorded) weighed the same speed with more
    mass: energy_gain fired at the frame before the edit with 26 kJ on the sedan. A gain after it still counts."""
    heavier = {"sedan": 2400.0, "sedan_single_track": 2400.0, "manual003": 1800.0}[preset]
    text = _script("mass-edit", 8.0, [(["throttle"], 0.0, 4.0), (["clutch"], 4.0, 8.0)], preset=preset)
    text += f'[[set]]\nat = 6.0\nparams = {{ "body.mass" = {heavier}, "body.yaw_inertia" = 4000.0 }}\n'
    assert "energy_gain" not in fired(text)
    if preset == "manual003":  # air that pushes the coasting car (the fault's kernel is the simple model's)
        assert "energy_gain" in fired(text, faults.pushing_drag)


def test_the_stiffest_longitudinal_curve_allowed_gains_no_energy_braking_in_reverse(tmp_path):
    """At tyres.b_long = 1,000 (its old upper limit) a sedan braked to a stop in reverse gained 54 J in one frame
    (the energy_gain monitor); the limit is 200 now, and a run at it is clean."""
    from dataclasses import replace

    from physics import ParamError

    sedan = load_preset("sedan")
    with pytest.raises(ParamError):
        sedan.params.with_value("tyres.b_long", 1000.0)
    script = parse_script('[script]\nname = "reverse-brake"\npreset = "sedan"\nduration = 12.0\n'
                          '[[set]]\nat = 0.0\ngear = -1\nthrottle_pedal = 1.0\n[[set]]\nat = 2.0\nsteer = 0.6\n'
                          '[[set]]\nat = 4.0\nthrottle_pedal = 0.0\nclutch_pedal = 1.0\n'
                          '[[set]]\nat = 7.0\nbrake_pedal = 1.0\n', "reverse_brake.toml")
    car = replace(sedan, params=sedan.params.with_value("tyres.b_long", 200.0))
    results = replay([compile_script(script, preset=car)])
    assert check_results(results, everything=True) == []  # every monitor, not only those the script names


def test_the_jerk_monitor_allows_the_grip_of_the_road_under_the_tyres():
    """The combined model's tyres grip with the road's friction under them: with the car's own tyres.mu at 0.01, its
    launch on split mu (the left wheels on a dry road) was an impossible jerk at 1.375 s (0.196 m/s^2 sideways against
    a limit of 0.151 from mu 0.01)."""
    from dataclasses import replace

    sedan = load_preset("sedan")
    car = replace(sedan, params=sedan.params.with_value("tyres.mu", 0.01))
    script = parse_script(_shipped("split_mu_launch.toml"), "split_mu_launch.toml")
    results = replay([compile_script(script, preset=car)])
    assert check_results(results, everything=True) == []
