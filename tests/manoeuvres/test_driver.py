"""The closed-loop driver: it tracks the ISO 3888-2 line, holds a speed, shifts, and its car's bits do not
depend on the batch around it; a parameter that should move a KPI moves it the right way."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from linear_car import linear_sedan

from physics import load_preset
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.runs.replay import replay
from workbench.scripts.format import load_script, parse_script, resolve_script
from workbench.scripts.program import compile_script

LINE = """
[script]
name = "line"
preset = "sedan"
duration = 20.0

[driver]
speed_kmh = 60.0

[driver.path]
kind = "iso3888_2"
run_up = 120.0
"""


def test_the_driver_tracks_the_iso3888_line_at_60_kmh():
    # The line at 60 km/h asks for 12 m/s^2 at its tightest: the near-linear sedan (grip to spare)
    # isolates the driver's tracking from the tyres' limit.
    car = Car(linear_sedan(), "near-linear sedan")
    (run,) = run_jobs([(parse_script(LINE, "line"), car)], ("lateral_error", "path_distance", "speed"))
    on = (run["path_distance"] > 115.0) & (run["path_distance"] < 120.0 + 61.0 + 10.0)
    assert on.sum() > 400
    rms = float(np.sqrt(np.mean(run["lateral_error"][on] ** 2)))
    assert rms <= 0.10
    assert np.abs(run["speed"][on] * 3.6 - 60.0).max() <= 1.0


def test_a_driven_car_does_not_depend_on_its_batch():
    script = parse_script(LINE, "line")
    sedan = load_preset("sedan")
    alone = replay([compile_script(script, sedan)])[0]
    others = [compile_script(replace(script, driver=replace(script.driver, speed=v)), sedan) for v in (40.0, 50.0)]
    batch = replay([others[0], compile_script(script, sedan), others[1]])
    assert batch[1].digest() == alone.digest()
    assert batch[0].digest() != alone.digest()


def test_the_driver_shifts_a_manual_car_up_and_holds_its_speed():
    program = compile_script(load_script(resolve_script("accel_0_200")))
    (result,) = replay([program])
    gear = result.column("gear")
    assert gear.max() >= 4 and np.all(np.diff(gear) >= 0)  # up through the box, never back
    assert np.all(result.column("clutch_pedal")[result.column("t") < 0.5] == 0.0)
    assert result.column("clutch_pedal").max() > 0.9  # the clutch went in for each shift


def test_a_manual_cars_throttle_gives_the_drive_force_asked_in_every_gear():
    """A manual car's speed controller asks for a drive force, and the throttle is what gives it at the wheels in the
    gear engaged: the engine's torque at that throttle (the full-throttle curve times it, less the friction) through
    the gear, the final drive and the wheel's radius is the force asked for, in every gear and at every speed (the
    engine at idle at the least)."""
    from physics import driver, engine, prepare

    p = prepare(load_preset("sedan").params).records[0]
    for gear in range(1, int(p["top_gear"]) + 1):
        ratio = p["gear_ratio"][gear + 1]
        for speed in (0.0, 5.0, 15.0, 30.0):
            imposed = driver.per_ratio(p, speed)
            rpm = max(imposed * ratio, p["engine_idle_rpm"])
            for force in (-200.0, 0.0, 400.0, 2500.0):
                throttle = driver.throttle_for(p, force, gear, imposed)
                torque = throttle * engine.curve(rpm, p) - engine.friction(rpm, p)
                assert torque * ratio * p["gearbox_final_drive"] / p["body_wheel_radius"] == pytest.approx(
                    force, rel=1e-12, abs=1e-9)
    # A demand of 1 is the engine's peak torque through 1st gear at the wheels: the most the car pushes with.
    assert driver.reference_force(p) == pytest.approx(
        p["engine_peak_torque"] * p["gear_ratio"][2] * p["gearbox_final_drive"] / p["body_wheel_radius"], rel=1e-15)


def _per_ratio(params, speed):
    """The engine speed [rpm] the road imposes per unit of gear ratio at ``speed`` [m/s], from the wheel and the final
    drive."""
    return speed / params.body.wheel_radius * params.gearbox.final_drive * 60.0 / (2.0 * np.pi)


def _gear_for(params, speed_kmh: float) -> int:
    """The gear the driver holds ``speed_kmh`` in: the highest whose engine speed at it is above UPSHIFT_MARGIN times
    the higher of the downshift speed and IDLE_MARGIN times idle (physics.driver.shift_phase), computed here from the
    gearbox and the wheel."""
    from physics.driver import IDLE_MARGIN, UPSHIFT_MARGIN
    from physics.driver_params import DriverParams

    floor = UPSHIFT_MARGIN * max(DriverParams().downshift * params.engine.rev_limit,
                                 IDLE_MARGIN * params.engine.idle_rpm)
    per_ratio = _per_ratio(params, speed_kmh / 3.6)
    return max(g for g, ratio in enumerate(params.gearbox.ratios, start=1) if per_ratio * ratio > floor)


@pytest.mark.parametrize(("name", "speed_kmh"), [("r140_sine_dwell", 80.0), ("iso7401_step", 80.0),
                                                 ("iso21994_braking", 100.0), ("iso3888_2", None)])
def test_a_speed_is_held_in_the_highest_gear_that_keeps_the_engine_above_the_shift_floor(name, speed_kmh):
    """The run-up goes through the gears at full throttle; near the speed the driver shifts up early into the highest
    gear that turns the engine at more than 1.1 times the downshift speed and gives the drive with at most ``cruise``
    of throttle, as a test driver holds 80 km/h in 3rd and not in 2nd at 4,700 rpm (before 0.3.21: 2nd at 4,706 to
    4,749 rpm at 80 km/h, 1st at 50 km/h in ISO 3888-2). Read just before the script's trigger (the throttle released
    or the brake applied)."""
    from physics.driver_params import DriverParams

    script = load_script(resolve_script(name))
    (result,) = replay([compile_script(script)])
    if script.driver.until is not None:
        k = int(np.searchsorted(result.column("t"), script.driver.until - 0.5))
    else:  # ISO 3888-2's trigger is a distance, the course's start: half a second before the throttle's release
        k = int(np.flatnonzero(result.column("throttle") > 0.0)[-1]) - 60
        speed_kmh = float(np.round(result.column("target_speed")[k] * 3.6))
    params = load_preset(script.preset).params
    gear = int(result.column("gear")[k])
    assert gear == _gear_for(params, speed_kmh) and gear >= 2
    assert result.column("throttle")[k] <= DriverParams().cruise
    assert result.column("rpm")[k] < 0.5 * params.engine.rev_limit
    assert abs(result.column("speed_kmh")[k] - speed_kmh) < 1.0


HOLD = """
[script]
name = "hold"
preset = "{preset}"
duration = 40.0

[driver]
speed_kmh = {speed}
{gains}

[driver.path]
kind = "straight"
length = 3000.0
"""

KICKDOWN = HOLD.format(preset="sedan", speed=100.0, gains="") + """
[[set]]
at = 12.0
params = { "aero.cd" = 5.0 }
"""


def test_a_speed_the_gear_cannot_hold_at_full_throttle_kicks_down_one_gear_and_is_held_again():
    """Holding 100 km/h in 4th, the drag goes up eighteen-fold at 12 s (cd 0.27 to 5): 4th at full throttle falls
    short and the car slows, the driver shifts down where the lower gear gives 1.2 times the drive, and the speed comes
    back in 3rd. One gear: the kick-down's clutch costs speed and swells the drive asked for, which sent the car on
    into 2nd at 6,087 rpm where 3rd holds it at about 0.86 of throttle; and nothing shifts it up again."""
    (result,) = replay([compile_script(parse_script(KICKDOWN, "kick-down"))])
    t, gear, speed, rpm = result.column("t"), result.column("gear"), result.column("speed_kmh"), result.column("rpm")
    params = load_preset("sedan").params
    held = _gear_for(params, 100.0)
    assert np.all(gear[(t > 10.0) & (t < 12.0)] == held)
    after = t > 12.0
    assert np.count_nonzero(np.diff(gear[after])) == 1 and gear[-1] == held - 1
    late = t > 22.0
    assert np.abs(speed[late] - 100.0).max() < 1.0
    assert result.column("throttle")[late].max() < 1.0  # held in the lower gear, not at full throttle
    assert rpm[late].max() < 0.6 * params.engine.rev_limit




def _hold(preset: str, speed: float, gains: str = ""):
    (result,) = replay([compile_script(parse_script(HOLD.format(preset=preset, speed=speed, gains=gains), "hold"))])
    return result


def test_a_gear_that_needs_more_than_cruise_but_holds_the_speed_is_taken_before_the_rev_limit():
    """manual003 at 170 km/h: 4th needs more than ``cruise`` (0.5) of throttle, less than ``RELIEF`` (0.9); without
    the relief upshift it held the speed in 3rd at 6,504 rpm (88% of its 7,400 rpm limit)."""
    result = _hold("manual003", 170.0)
    late = result.column("t") > 25.0
    assert np.all(result.column("gear")[late] == 4)
    assert result.column("rpm")[late].max() < 0.7 * load_preset("manual003").params.engine.rev_limit
    assert np.abs(result.column("speed_kmh")[late] - 170.0).max() < 0.5


def test_no_speed_is_held_near_the_engines_idle_where_the_downshift_speed_is_zero():
    """With ``downshift = 0`` the early upshift's floor (1.1 times the downshift speed) was 0: the sedan went from 2nd
    to 6th at 30 km/h and held it at 647 rpm, below its 800 rpm idle, with the brake on. The floor is also 1.1 times
    twice the idle speed."""
    result = _hold("sedan", 30.0, "downshift = 0.0")
    late = result.column("t") > 25.0
    idle = load_preset("sedan").params.engine.idle_rpm
    assert result.column("rpm")[late].min() > 2.0 * idle
    assert np.abs(result.column("speed_kmh")[late] - 30.0).max() < 0.5


SLOW_DOWN = """
[script]
name = "slow-down"
preset = "sedan"
duration = 30.0

[driver]
speed_kmh = [[0.0, 100.0], [15.0, 100.0], [20.0, 60.0]]
profile = "time"

[driver.path]
kind = "straight"
length = 3000.0
"""


def test_the_driver_never_brakes_beside_an_open_throttle():
    """A manual car's speed controller brakes only for what the engine's braking with the throttle closed does not
    give. Taken down from 100 to 60 km/h, the demand turned negative but less than the engine's friction: the throttle
    stayed open while the brake was on (67 frames, up to 0.018 of pedal)."""
    (result,) = replay([compile_script(parse_script(SLOW_DOWN, "slow-down"))])
    t, throttle, brake = result.column("t"), result.column("throttle"), result.column("brake")
    assert brake.max() > 0.05 and throttle[(t > 25.0)].min() > 0.0  # it brakes, and holds 60 km/h on the throttle
    assert not np.any((throttle > 0.0) & (brake > 0.0))
    assert abs(result.column("speed_kmh")[-1] - 60.0) < 0.5


def test_a_speed_profile_shifts_up_only_at_the_upshift_speed():
    """ISO 4138's ramp (a speed profile) shifts where the engine reaches ``upshift`` of the rev limit and not early:
    every gear change within the ramp's quasi-steady seconds costs the fit 2 s of them."""
    from physics.driver_params import DriverParams

    (result,) = replay([compile_script(load_script(resolve_script("iso4138_circle")))])
    gear, rpm = result.column("gear"), result.column("rpm")
    ups = np.flatnonzero(np.diff(gear) > 0)
    limit = load_preset("sedan").params.engine.rev_limit
    assert len(ups) >= 1
    assert np.all(rpm[ups] > 0.97 * DriverParams().upshift * limit)


def test_the_driver_steers_a_kinematic_car_round_a_circle():
    text = LINE.replace('preset = "sedan"', 'preset = "teaching"').replace("speed_kmh = 60.0", "speed_kmh = 20.0")
    text = text.replace('kind = "iso3888_2"\nrun_up = 120.0', 'kind = "circle"\nradius = 15.0')
    (result,) = replay([compile_script(parse_script(text, "circle"))])
    late = result.column("t") > 8.0
    assert np.abs(result.column("lateral_error")[late]).max() < 0.05
    assert np.abs(result.column("speed_kmh")[late] - 20.0).max() < 0.5


@pytest.mark.parametrize(("change", "direction"), [({"tyres.b_rear": 11.0}, -1), ({"tyres.b_front": 8.0}, +1)])
def test_a_grip_change_moves_the_understeer_gradient_the_right_way(change, direction):
    m = CATALOGUE["iso4138"]
    sedan = load_preset("sedan")
    cars = [Car(sedan.params, "sedan"), Car(sedan.params.with_values(change), "changed")]
    base, changed = ({k.key: k.value for k in kpis}["understeer_gradient"]
                     for kpis in m.run(cars, lambda jobs: run_jobs(jobs, m.channels)))
    # Less rear cornering stiffness: more oversteer (a smaller gradient); less front: more understeer.
    assert direction * (changed - base) > 0.2


def test_a_session_drives_on_from_a_frame_of_a_driven_replay():
    from workbench.runs.live import LiveSession

    session = LiveSession("sedan")
    session.load_script(resolve_script("iso7401_step"))
    session.start_replay()
    while session.replaying:
        session.step()
    frame = 900
    before = session.log.column("steer")[:frame].copy()
    session.drive_from(frame)  # re-simulates the driven frames and checks them bit for bit
    assert np.array_equal(session.log.column("steer")[:frame], before)
    for _ in range(120):
        session.step({"right"})  # from here the keys steer: the driver has let go
    assert session.log.column("steer")[-1] < -0.5
    assert session.log.column("target_speed")[-1] == 0.0


def test_the_lane_change_speed_is_one_batch_and_rises_with_grip():
    m = CATALOGUE["iso3888_2"]
    sedan = load_preset("sedan")
    cars = [Car(sedan.params, "sedan"), Car(sedan.params.with_values({"tyres.mu": 1.4}), "grippier")]
    calls = []

    def runner(jobs):
        calls.append(len(jobs))
        return run_jobs(jobs, m.channels)

    base, grippier = ({k.key: k.value for k in kpis}["max_entry_speed"] for kpis in m.run(cars, runner))
    from workbench.manoeuvres.lane_change import SPEEDS

    assert calls == [2 * len(SPEEDS)]  # every speed of both cars in one batch
    assert base is not None and grippier > base


def test_the_robot_reaches_the_car_through_its_steering_rate_and_lock():
    text = LINE.replace("[driver.path]\nkind = \"iso3888_2\"\nrun_up = 120.0\n", "")
    text += '[robot]\nkind = "step"\nstart = 3.0\namplitude = 25.0\nrate = 3000.0\n'  # road-wheel degrees, ratio 1
    (result,) = replay([compile_script(parse_script(text, "step"))])
    steer = result.column("steer")
    rate = load_preset("sedan").params.steering.rate
    assert np.abs(np.diff(steer)).max() <= rate * result.program.dt * (1 + 1e-12)
    assert steer.max() == pytest.approx(np.radians(25.0))


@pytest.mark.parametrize("script", ["iso4138_circle", "iso7975_brake_turn", "iso3888_2"])
def test_the_driver_does_not_chatter_at_a_crawl(script):
    # Pulling away (ISO 4138, 7975) and rolling to a stop (the end of ISO 3888-2) the steer went a frame each way
    # at its rate limit, 0.01 rad a frame: the body's slip angle answered it within a frame.
    result = replay([compile_script(load_script(resolve_script(script)))])[0]
    speed, steer = np.abs(result.column("speed")), result.column("steer")
    crawling = speed[1:-1] < 4.0
    assert crawling.sum() > 60  # the run has its crawl
    d = np.diff(steer)
    back_and_forth = (d[1:] * d[:-1] < 0) & (np.abs(d[1:]) >= 0.002) & (np.abs(d[:-1]) >= 0.002)
    assert not (back_and_forth & crawling).any(), np.nonzero(back_and_forth & crawling)[0][:10]


def test_the_driver_holds_a_quick_car_on_the_circle_at_the_scripts_dt():
    """The F1TENTH car's yaw mode (about 1.5 Hz at 45 km/h) is near the preview loop's 2 / preview_time (1.3 Hz). The
    frame's hold and implicit step lag the loop by about a frame, and at 1/120 s it swung about the ISO 4138 circle
    from 45 km/h, the steer -5 .. 7 deg, with an understeer gradient of 1.34 deg/g against 2.18 at 1/480 s. With the
    single-track step's slips taken after the frame's turn (0.3.12) it held the circle lower down, but still swung
    near its limit: a maximum lateral acceleration of 2.46 m/s^2 at 1/120 s against 3.06 at 1/480 s. Its errors taken
    a frame on, it holds the circle to its limit and the KPIs do not depend on dt."""
    m = CATALOGUE["iso4138"]
    car = Car(load_preset("f1tenth").params, "f1tenth")
    got = {}
    for dt in (1 / 120, 1 / 480):
        (run,) = run_jobs([(m.base_script(), car)], m.channels, dt=dt)
        got[dt] = {k.key: k.value for k in m.kpis(run)}
        window = (run.t >= 20.0) & (run.t < 30.0)  # 45 to 62 km/h, below its limit (about 3 m/s^2 at 69 km/h)
        assert np.degrees(np.ptp(run["steer"][window])) < 0.5
    for key in ("understeer_gradient", "max_lateral_acceleration"):
        assert got[1 / 120][key] == pytest.approx(got[1 / 480][key], rel=0.02), key


def test_the_driver_does_not_chatter_with_a_kinematic_car_at_speed():
    """The kinematic bicycle's yaw rate answers its steer within the frame: the driver's yaw feedback, a frame late, was
    a loop of gain yaw_gain (1) around the steer, and on the ISO 4138 circle from 81 km/h the steer went 0.48 deg a
    frame each way at the steering rate (understeer gradient -1.2 deg/g at 1/120 s where the car has none)."""
    m = CATALOGUE["iso4138"]
    (run,) = run_jobs([(m.base_script(), Car(load_preset("teaching").params, "teaching"))], m.channels)
    fast = run["speed"][1:] > 80.0 / 3.6
    assert fast.sum() > 1000
    assert np.degrees(np.abs(np.diff(run["steer"])[fast])).max() < 0.01
    assert abs({k.key: k.value for k in m.kpis(run)}["understeer_gradient"]) < 0.01


def test_the_drivers_lead_fades_out_where_the_yaw_answers_within_a_frame():
    """The lead (the course taken a frame on by r dt) is a feedback of the yaw rate a frame late too. Taken whole at
    every speed, at dt = 1/60 s the sedan's steer went 1.15 deg a frame each way on the ISO 4138 circle from 20 km/h,
    where its yaw answers the steer within a frame; it fades in between once and twice the crawl speed: 0.10, as
    without the lead (0.095). (0.97, 0.07 and 0.19 before 0.3.13, the open differential's engine inertia taken off
    its wheels' difference.)"""
    m = CATALOGUE["iso4138"]
    (run,) = run_jobs([(m.base_script(), Car(load_preset("sedan").params, "sedan"))], m.channels, dt=1 / 60)
    slow = (run.t[1:] > 2.0) & (run.t[1:] < 10.0)  # 20 km/h, then the ramp's first 2 s
    assert np.degrees(np.abs(np.diff(run["steer"])[slow])).mean() < 0.2


def test_a_hard_stop_shifts_nothing_down_and_declutches_before_the_gear_drags_the_engine_below_idle():
    """`split_mu_braking` brakes at full pedal from 100 km/h at 14 s (the script's pedals, the driver holding the
    lane). The driver used to shift down 4th, 3rd, 2nd, 1st under the ABS stop, each clutch engagement dragging the
    driven axle: in 1st at 40 km/h the icy rear wheel went to a slip of -0.95. Now nothing is shifted down with the
    clutch out; the clutch goes in once the gear would turn the engine below idle, and stays in (1st goes in with it),
    and the engine neither stalls nor drags."""
    (result,) = replay([compile_script(load_script(resolve_script("split_mu_braking")))])
    t, gear, pedal = result.column("t"), result.column("gear"), result.column("clutch_pedal")
    stop = t >= 14.0
    first = int(gear[stop][0])
    params = load_preset("sedan").params
    rolling = stop & (result.column("speed") > params.clutch.auto_speed)  # the pedal's clutch, not the automatic one
    assert np.all(gear[rolling & (pedal < 0.9)] == first)  # no gear goes in with the clutch out
    assert gear[-1] == 1  # put in with the clutch down: the car stands in 1st
    imposed = _per_ratio(params, result.column("vx")) * params.gearbox.ratios[first - 1]
    lugging = stop & (imposed < params.engine.idle_rpm) & (result.column("speed") > params.clutch.auto_speed)
    assert lugging.sum() > 30 and pedal[lugging][30:].min() == 1.0  # in, within a quarter of a second, and held
    assert not np.any(result.column("stalled")[stop])
    rolling = stop & (result.column("speed") > 5.0)
    assert result.column("slip_ratio_rr")[rolling].min() > -0.5  # ABS holds the icy wheel near its target (-0.3)


def test_a_stop_after_the_trigger_declutches_before_the_engine_stalls():
    """ISO 7975's braking in a turn (the driver's own brake, 5 m/s^2, after its trigger), held in 3rd with the clutch
    let out, stalls the engine at 12 km/h: the driver presses the clutch where the gear would drag the engine below
    idle, and lets it out below the speed where the automatic clutch holds the engine."""
    (result,) = replay([compile_script(load_script(resolve_script("iso7975_brake_turn")))])
    assert not np.any(result.column("stalled"))
    t, pedal, speed = result.column("t"), result.column("clutch_pedal"), result.column("speed")
    assert pedal[(t > 22.0) & (speed > 3.5) & (speed < 5.0)].min() == 1.0
    assert result.column("rpm")[t > 22.0].min() > 0.9 * load_preset("sedan").params.engine.idle_rpm


STOP_AND_GO = HOLD.format(preset="sedan", speed=100.0, gains="") + """
[[set]]
at = 14.0
brake_pedal = 1.0
throttle_pedal = 0.0

[[set]]
at = 20.0
release = ["brake_pedal", "throttle_pedal"]
"""


def test_a_car_stopped_hard_pulls_away_again_in_first():
    """The script stops the sedan at full brake from 100 km/h in 4th and hands the pedals back at 20 s, standing. No
    gear goes in with the clutch out under the brake; with the clutch down the gear for the speed goes in, so the car
    stands in 1st and pulls away in it and back up to 100 km/h, with no stall (declutched in 4th and left there, it
    would have pulled away in 4th)."""
    (result,) = replay([compile_script(parse_script(STOP_AND_GO, "stop-and-go"))])
    t, gear, speed, pedal = (result.column(name) for name in ("t", "gear", "speed_kmh", "clutch_pedal"))
    assert gear[int(np.searchsorted(t, 13.5))] == 4
    stop = (t >= 14.0) & (t < 20.0)
    changed = np.flatnonzero(np.diff(gear) != 0) + 1
    assert np.all(pedal[changed[stop[changed]]] >= 0.9)  # under the brake a gear goes in only with the clutch down
    standing = (t > 19.0) & (t < 20.0)
    assert speed[standing].max() < 0.1 and np.all(gear[standing] == 1)
    assert not np.any(result.column("stalled"))
    assert abs(speed[-1] - 100.0) < 1.0 and gear[-1] == 4


def test_braking_hard_below_abs_floor_the_driver_holds_the_steer():
    """split_mu_braking's last metres: below ABS's abs_min_speed the wheels lock on split mu and the car yaws (about
    10 deg/s); the preview law, steering for the distance ahead at any speed, wound on full opposite lock (-31.5 deg)
    as the car stopped and left it there. A locked front wheel does not steer the car: the driver holds the steer."""
    (result,) = replay([compile_script(load_script(resolve_script("split_mu_braking")))])
    params = result.program.params
    speed, steer, brake = result.column("speed"), result.column("steer"), result.column("brake")
    held = (speed < params.brakes.abs_min_speed) & (brake >= 0.3)
    first = int(np.argmax(held))
    assert held.sum() > 20 and np.all(held[first:])  # to the end of the script, standing
    assert np.all(steer[first:] == steer[first - 1])
    assert abs(steer[first]) < 0.1 * params.steering.lock
