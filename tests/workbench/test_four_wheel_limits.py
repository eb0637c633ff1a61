"""The four-wheel car's limits (its front wheels' angles, its yaw inertia, the yaw the monitors allow) and the gearbox's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics import ParamError, load_preset
from physics.groups import WHEEL_ANGLE_MAX
from physics.params import YAW_INDEX_MIN, front_wheel_angles, widest_front_wheel
from workbench.runs.monitors import frames_of_result, run_monitors
from workbench.runs.replay import replay
from workbench.scripts.format import ScriptError, parse_script
from workbench.scripts.program import compile_script

SEDAN = load_preset("sedan").params


@pytest.mark.parametrize("track", [1.58, 3.0, 6.0])
def test_full_lock_angles_meet_ackermann_condition(track):
    """Full Ackermann (share 1): both wheels point at one turn centre on the rear axle's line, so
    cot(outer) - cot(inner) = track / wheelbase (Milliken, RCVD 2.2)."""
    car = SEDAN.with_values({"body.track": track, "steering.ackermann": 1.0})
    inner, outer = car.full_lock_wheel_angles()
    assert inner > car.steering.lock > outer > 0.0
    assert 1.0 / math.tan(outer) - 1.0 / math.tan(inner) == pytest.approx(track / car.body.wheelbase, rel=1e-12)


def test_parallel_steer_turns_both_wheels_by_the_lock():
    inner, outer = SEDAN.with_values({"steering.ackermann": 0.0}).full_lock_wheel_angles()
    assert inner == outer == SEDAN.steering.lock


def test_a_track_that_turns_the_inner_wheel_past_80_deg_is_refused():
    # The sedan's full lock (0.55 rad) turns about a point 4.63 m from the rear axle's centre: a 10 m track puts the
    # inner wheel beyond it (97 deg). The model made energy there (204 J in a frame at 50 m).
    with pytest.raises(ParamError) as err:
        SEDAN.with_values({"body.track": 10.0})
    text = str(err.value)
    assert "the inner one would turn 97.03 deg, past the 80 deg" in text
    assert "body.track 10 m" in text and "steering.lock 31.51 deg" in text
    # Up to the limit it is a car: the wheel at 79 deg (found by bisection on the closed form).
    lo, hi = 6.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        try:
            SEDAN.with_values({"body.track": mid})
            lo = mid
        except ParamError:
            hi = mid
    inner, _ = SEDAN.with_values({"body.track": lo}).full_lock_wheel_angles()
    assert inner == pytest.approx(WHEEL_ANGLE_MAX, abs=1e-9)


def test_anti_ackermann_names_the_outer_wheel_and_the_largest_lock():
    with pytest.raises(ParamError) as err:
        SEDAN.with_values({"steering.ackermann": -1.0, "steering.lock": math.radians(70.0)})
    text = str(err.value)
    assert "at full lock: the outer one would turn 82.67 deg" in text
    assert "a smaller lock or an Ackermann share nearer 0 keeps it within (the largest lock these allow: 67.78 deg)" \
        in text
    allowed = SEDAN.with_values({"steering.ackermann": -1.0, "steering.lock": math.radians(67.78)})
    assert widest_front_wheel(allowed.steering.lock, -1.0, 2.85, 1.58)[0] <= WHEEL_ANGLE_MAX
    with pytest.raises(ParamError):
        SEDAN.with_values({"steering.ackermann": -1.0, "steering.lock": math.radians(67.79)})


def test_a_wheel_past_80_deg_at_part_lock_is_refused_where_it_happens():
    """A negative Ackermann share on a track six times the wheelbase turns the inner wheel furthest before full lock
    (a review: 79.3 deg at full lock, 80.2 deg at 28.5 deg of lock)."""
    changes = {"body.wheelbase": 1.43, "body.lr": 0.7, "body.length": 3.0, "body.track": 8.48,
               "steering.ackermann": -0.99, "steering.lock": math.radians(30.9)}
    inner, outer = front_wheel_angles(math.radians(30.9), -0.99, 1.43, 8.48)
    assert max(abs(inner), abs(outer)) < WHEEL_ANGLE_MAX  # within at full lock
    with pytest.raises(ParamError, match=r"the front wheels at 28\.\d+ deg of lock: the inner one would turn 80\.2"):
        SEDAN.with_values(changes)


def test_the_single_track_car_keeps_its_own_lock_limit_only():
    car = load_preset("sedan_single_track").params.with_values({"body.track": 50.0})
    assert car.body.track == 50.0


WIDE_HANDBRAKE = """
[script]
name = "wide track handbrake turn"
preset = "sedan"
duration = 6.6
dt = 0.008333333333333333

[[set]]
at = 0.0
params = { "body.track" = 7.5, "aids.esc_slip_gain" = 0.0, "aids.esc_cut" = 0.0 }

[[hold]]
keys = ["throttle"]
from = 0.0
to = 0.3

[[hold]]
keys = ["throttle"]
from = 2.708333
to = 4.75

[[hold]]
keys = ["handbrake", "right"]
from = 4.75
to = 5.875

[[hold]]
keys = ["brake"]
from = 5.875
to = 6.6
"""


def test_yaw_from_a_wheel_braked_on_a_wide_track_is_within_the_jerk_limit():
    """The hunt's car (seed 7 on a 7.5 m track): a handbrake turn then the brake pedal yaws the car at 755 deg/s^2
    at 6.18 s (769 at 6.2 s before 0.3.11, whose brakes slowed the rear wheels without the engine in gear; the
    script's braking runs to 6.6 s, past the spike's later times on the way), within what the tyres' grip gives at
    the rear wheels' 4.01 m from the centre of mass (the monitor took the axles' 1.425 m and fired at 729). Stability
    control as the hunt found it, on the yaw rate alone: its slip-angle bound (0.3.22) catches the slide sooner and the
    spike is smaller."""
    program = compile_script(parse_script(WIDE_HANDBRAKE))
    result = replay([program])[0]
    frames = frames_of_result(result)
    yaw_acc = np.abs(np.diff(frames["yaw_rate"][:, 0])) / frames.dt
    assert math.degrees(yaw_acc.max()) > 729.1  # the old limit, passed
    assert not [v.monitor for v in run_monitors(frames)]


def test_a_yaw_inertia_below_the_floor_is_refused_with_the_least_it_may_be():
    b = SEDAN.body
    least = YAW_INDEX_MIN * b.mass * (b.wheelbase - b.lr) * b.lr  # 162.5 kg m^2 on the sedan
    assert SEDAN.with_values({"body.yaw_inertia": least}).body.yaw_inertia == least
    with pytest.raises(ParamError) as err:
        SEDAN.with_values({"body.yaw_inertia": 3.0})  # made 31.7 J in a frame braking in a bend
    assert str(err.value) == ("body.yaw_inertia = 3 kg m^2 with body.mass 1600 kg, lf 1.425 m and lr 1.425 m: a "
                              "dynamic index Iz / (m lf lr) of 0.00092, below the 0.05 the model's yaw needs "
                              "(at least 162.5 kg m^2; road cars have 0.8 to 1.2)")
    # A heavier body on the same inertia is refused by the same rule, naming the mass.
    with pytest.raises(ParamError, match="body.yaw_inertia = 2900 kg m.2 with body.mass 30000 kg, .*index"):
        SEDAN.with_values({"body.mass": 30000.0})


MANUAL003_LIGHT_YAW = """
[script]
name = "manual003, a light yaw inertia, coasting in a turn"
preset = "manual003"
duration = 7.0

[[set]]
at = 0.0
params = { "body.yaw_inertia" = INERTIA }

[[hold]]
keys = ["throttle"]
from = 0.0
to = 4.0

[[hold]]
keys = ["left"]
from = 3.5
to = 7.0

[[hold]]
keys = ["clutch"]
from = 4.0
to = 7.0
"""


@pytest.mark.parametrize("preset", ["manual003", "sedan_single_track", "f1tenth"])
def test_a_single_track_car_is_held_to_the_same_floor(preset):
    """A single-track car below the floor made energy too (carbench 0.3.24 ran it): manual003 at 3 kg m^2 coasting in a
    turn with the clutch down spun at 18 rad/s and sped up from 7.19 to 9.21 m/s, 1,182 J in a frame; sedan_single_track
    at 0.1 kg m^2, 7,306 J. Refused as the four-wheel car's is; at the floor the same run coasts down."""
    params = load_preset(preset).params
    b = params.body
    least = YAW_INDEX_MIN * b.mass * (b.wheelbase - b.lr) * b.lr
    with pytest.raises(ParamError, match=r"body.yaw_inertia = .* below the 0.05 the model's yaw needs"):
        params.with_values({"body.yaw_inertia": 0.5 * least})
    assert params.with_values({"body.yaw_inertia": least}).body.yaw_inertia == least
    if preset == "manual003":
        with pytest.raises(ScriptError, match="below the 0.05"):
            compile_script(parse_script(MANUAL003_LIGHT_YAW.replace("INERTIA", "3.0")))
        (result,) = replay([compile_script(parse_script(MANUAL003_LIGHT_YAW.replace("INERTIA", repr(least))))])
        speed, t = result.column("speed"), result.column("t")
        coasting = t >= 4.5
        assert speed[coasting].max() <= speed[coasting][0] + 1e-9  # coasts down, never faster
        assert not [v.monitor for v in run_monitors(frames_of_result(result))]


def test_every_shipped_four_wheel_preset_is_well_within_the_floors():
    from physics.presets import preset_names

    four = [load_preset(n).params for n in preset_names()]
    four = [p for p in four if p.kind == "dynamic" and p.model.layout == "four_wheel"]
    assert len(four) >= 2
    for p in four:
        b = p.body
        assert b.yaw_inertia / (b.mass * (b.wheelbase - b.lr) * b.lr) > 10 * YAW_INDEX_MIN
        assert max(map(abs, p.full_lock_wheel_angles())) < math.radians(45.0)


@pytest.mark.parametrize("axis, refused", [
    ("steering.lock=10:80:8", "car 7 (steering.lock = 70 deg): the front wheels at full lock: the inner one would turn "
                              "85.04 deg"),
    ("body.yaw_inertia=500,3,5", "car 2 (body.yaw_inertia = 3 kg m^2): body.yaw_inertia = 3 kg m^2 with body.mass 1600"),
    ("body.mass=1600,40000", "car 2 (body.mass = 40000 kg): body.yaw_inertia = 2900 kg m^2 with body.mass 40000 kg"),
])
def test_a_sweep_refuses_the_first_car_the_four_wheel_rules_refuse(axis, refused):
    """A sweep checked each group's own rules only, and ran the cars these rules refuse everywhere else (a review:
    steering.lock to 80 deg and a 3 kg m^2 yaw inertia on the sedan ran, the second made energy)."""
    from workbench.runs.sweep import plan_sweep
    from workbench.runs.sweep_axes import SweepError
    from workbench.runs.sweep_bench import ONE_SECOND

    program = compile_script(parse_script(ONE_SECOND))
    with pytest.raises(SweepError) as err:
        plan_sweep(program, [axis])
    assert str(err.value).startswith(refused), str(err.value)
    assert plan_sweep(program, ["steering.lock=10:65:8", "body.mass=900:1800:3"]).cars == 24
    single = compile_script(parse_script(ONE_SECOND.replace('preset = "sedan"', 'preset = "sedan_single_track"')))
    with pytest.raises(SweepError, match=r"car 2 \(body.yaw_inertia = 3 kg m\^2\): body.yaw_inertia = 3 kg m\^2"):
        plan_sweep(single, ["body.yaw_inertia=500,3,5"])


def test_a_live_edit_past_twelve_gears_is_refused_before_the_car_takes_it():
    """The window took 14 gears (each ratio within its range) and its next step raised from the timer slot: the
    parameter record holds 12. The group refuses it, as a preset, a [[set]] or a sweep would."""
    from physics.groups import MAX_GEARS
    from workbench.runs.live import LiveSession

    session = LiveSession("manual003")
    ratios = list(session.params.gearbox.ratios)
    more = ratios + [0.5] * (MAX_GEARS + 1 - len(ratios))
    assert session.edit_problem({"gearbox.ratios": more}) == (
        f"gearbox.ratios: {MAX_GEARS + 1} gears; at most {MAX_GEARS} (the model's table of ratios)")
    with pytest.raises(ParamError):
        session.set_param("gearbox.ratios", more)
    session.step()
    assert list(session.params.gearbox.ratios) == ratios
    session.set_param("gearbox.ratios", more[:MAX_GEARS])
    session.step()
    assert len(session.params.gearbox.ratios) == MAX_GEARS
