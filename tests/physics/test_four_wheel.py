"""The four-wheel car: lateral load transfer and its split by roll stiffness, the balance the anti-roll bars
set, the linear range against the single-track car, the differentials, a lifting wheel, stability control.

Expected values come from closed forms written out here (the load transfer's moment balance, the linear
bicycle), never from the model's own functions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from grip_drivers import G, SpeedHold, drive, flying_start, sedan
from helpers import four_wheel_energy, keys, record
from helpers import preset as preset_params

from physics import Inputs, Simulation

DT = 1.0 / 120.0
CORNERS = ("fl", "fr", "rl", "rr")
NO_AIDS = {"aids.esc": 0, "aids.tcs": 0}


def four(**changes):
    return sedan("sedan", **changes)


def steady_turn(car, speed: float, share: float, seconds: float = 8.0) -> np.recarray:
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, speed, 3)
    return drive(sim, seconds, SpeedHold(speed, DT, share))


@pytest.mark.parametrize("share", [0.05, 0.1])
def test_steady_lateral_load_transfer_is_m_ay_h_over_t_split_by_roll_stiffness(share):
    """Gillespie, Fundamentals of Vehicle Dynamics (1992), ch. 8: the body rolls phi = m a_y h' / (K - m g h') (h' the
    centre of mass over the roll axis, K the axles' roll stiffnesses), its centre of mass moving sideways by h' phi,
    and the axles carry (m a_y h + m g h' phi) / t between them: each roll centre its share of the weight's transfer
    at once, the springs and bars the rest, m a_y h' + m g h' phi = K phi, in proportion to their roll stiffnesses."""
    car = four(**NO_AIDS)
    run = steady_turn(car, 20.0, share)
    b, s = car.body, car.suspension
    g = car.model.gravity
    ay = run.accel_lat[-1]
    lf = b.wheelbase - b.lr
    k_front = 0.5 * s.spring_front * b.track**2 + s.arb_front
    k_rear = 0.5 * s.spring_rear * b.track**2 + s.arb_rear
    axis = s.roll_centre_front + (s.roll_centre_rear - s.roll_centre_front) * lf / b.wheelbase
    above = b.cg_height - axis
    roll = b.mass * ay * above / (k_front + k_rear - b.mass * g * above)
    assert run.roll[-1] == pytest.approx(roll, rel=0.01)
    # 5% more than the roll moment over the roll stiffness alone, which left the shift out (before 0.3.24)
    assert run.roll[-1] > 1.04 * b.mass * ay * above / (k_front + k_rear)
    front = 0.5 * (run.load_fr[-1] - run.load_fl[-1])
    rear = 0.5 * (run.load_rr[-1] - run.load_rl[-1])
    assert front + rear == pytest.approx((b.mass * ay * b.cg_height + b.mass * g * above * roll) / b.track, rel=0.01)
    elastic = (b.mass * ay * above + b.mass * g * above * roll) / b.track
    expected_front = b.mass * ay * b.lr / b.wheelbase * s.roll_centre_front / b.track + elastic * k_front / (
        k_front + k_rear)
    assert front == pytest.approx(expected_front, rel=0.01)
    # which is the roll the preset check bounds at 1 g (CarParams.roll_at_1g), in proportion to a_y
    assert run.roll[-1] == pytest.approx(car.roll_at_1g() * ay / g, rel=0.01)


def understeer_at_04_g(car, speed: float = 20.0) -> float:
    """The local understeer gradient at 0.4 g [deg/g]: d(delta - L r / v) / d(a_y / g) fitted over 0.3-0.5 g on a
    slow steer ramp at constant speed (ISO 4138's constant-speed method), before any loss of control."""
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, speed, 3)
    run = drive(sim, 20.0, SpeedHold(speed, DT, lambda t: 0.25 * min(t / 20.0, 1.0)))
    ay = run.vx * run.yaw_rate / G
    excess = np.degrees(run.steer - car.body.wheelbase * run.yaw_rate / run.vx)
    fit = (ay > 0.3) & (ay < 0.5) & (np.arange(len(ay)) < np.argmax(ay))
    return float(np.polyfit(ay[fit], excess[fit], 1)[0])


def test_moving_roll_stiffness_to_the_front_raises_the_understeer_gradient():
    total = 60000.0
    gradients = [understeer_at_04_g(four(**NO_AIDS, **{"suspension.arb_front": front,
                                                          "suspension.arb_rear": total - front}))
                 for front in (0.0, 15000.0, 30000.0, 45000.0, 60000.0)]
    assert np.all(np.diff(gradients) > 0.0), gradients
    assert gradients[-1] - gradients[0] >= 1.0, gradients


def test_linear_range_yaw_gain_matches_the_single_track_car():
    """Below 0.1 g the roll barely moves the loads: the same axle cornering stiffnesses give the same yaw gain."""
    gains = {}
    for preset in ("sedan", "sedan_single_track"):
        run = steady_turn(sedan(preset, **({} if preset == "sedan_single_track" else NO_AIDS)), 20.0, 0.012)
        gains[preset] = run.yaw_rate[-1] / run.steer[-1]
        assert run.accel_lat[-1] < 0.1 * G
    assert gains["sedan"] == pytest.approx(gains["sedan_single_track"], rel=0.03)


@pytest.mark.parametrize(("kind", "spins"), [("open", True), ("limited_slip", False)])
def test_an_open_differential_spins_the_inside_wheel_out_of_a_tight_corner(kind, spins):
    """A 15 m circle at 9 m/s (0.5 g) in 3rd, then full throttle: the unloaded inner rear wheel spins on an open
    differential; a limited-slip one sends the torque to the outer wheel."""
    extra = {"differential.kind": kind, **NO_AIDS}
    if kind == "limited_slip":
        extra.update({"differential.preload": 100.0, "differential.ramp": 0.4})
    car = four(**extra)
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 9.0, 3)
    share = math.atan(car.body.wheelbase / 15.0) / car.steering.lock
    hold = SpeedHold(9.0, DT, share)

    def driver(t, tel):
        return hold(t, tel) if t < 4.0 else Inputs.from_keys(1, set(), throttle_pedal=1.0, steer=share)

    run = drive(sim, 6.0, driver)
    late = run.t > 4.0
    assert (run.slip_ratio_rl[late].max() > 1.0) == spins  # the left wheel is inside a left turn
    assert run.slip_ratio_rr[late].max() < 0.5


def test_the_locked_differential_holds_one_speed():
    car = four(**{"differential.kind": "locked", **NO_AIDS})
    run = steady_turn(car, 9.0, math.atan(car.body.wheelbase / 15.0) / car.steering.lock, seconds=4.0)
    assert np.allclose(run.wheel_speed_rl[10:], run.wheel_speed_rr[10:], rtol=1e-6)


def launch(car, seconds: float, throttle: float = 1.0, ground: np.ndarray | None = None) -> np.recarray:
    """Full throttle in 1st from 3 m/s (the launch clutch closed), straight ahead."""
    sim = Simulation(car, n=1, dt=DT)
    if ground is not None:
        sim.set_ground(ground)
    flying_start(sim, 3.0, 1)
    return drive(sim, seconds, lambda t, tel: Inputs.from_keys(1, set(), throttle_pedal=throttle))


def ice_behind(x_end: float, mu: float = 0.1) -> np.ndarray:
    """Ground rows (physics.surface) of ice from far behind the car up to x = ``x_end``."""
    return np.array([[4.0, mu, -1.0, 0.0], [-1000.0, -50.0, 0.0, 0.0], [x_end, -50.0, 0.0, 0.0],
                     [x_end, 50.0, 0.0, 0.0], [-1000.0, 50.0, 0.0, 0.0]])


def test_an_open_centre_differential_splits_the_torque_as_its_gears_do():
    """All-wheel drive below the grip, part throttle in 1st: the front axle takes centre_split of the drive (the tyre
    forces follow the drive torques less the wheels' own acceleration, within 2%)."""
    car = four(**NO_AIDS, **{"body.driven_axle": "all", "differential.centre_split": 0.35})
    run = launch(car, 1.0, throttle=0.3)
    b = car.body
    # What each axle takes from the drivetrain: its tyres' torque and what spins its wheels up, r Fx + I dw/dt.
    front = b.wheel_radius * run.fx_front[:-1] + b.wheel_inertia_front * np.diff(run.wheel_front) / DT
    rear = b.wheel_radius * run.fx_rear[:-1] + b.wheel_inertia_rear * np.diff(run.wheel_rear) / DT
    late = run.t[:-1] > 0.5
    np.testing.assert_allclose((front / (front + rear))[late], 0.35, rtol=0.02)
    assert np.all(run.slip_ratio_front < 0.05) and np.all(run.slip_ratio_rear < 0.05)  # well below the grip


@pytest.mark.parametrize(("kind", "slip", "least", "most"), [("open", (1.0, 10.0), 0.0, 0.1),
                                                            ("limited_slip", (0.05, 0.8), 0.15, 1.0),
                                                            ("locked", (0.0, 0.05), 0.2, 1.0)])
def test_an_open_centre_differential_lets_the_axle_on_ice_spin(kind, slip, least, most):
    """The rear axle on ice (mu 0.1), the front on asphalt, 0.4 throttle in 1st for 0.3 s: an open centre passes only
    what the ice takes (over its share of the split) and the rear wheels spin (slip ratio above 1, under 0.1 g); a
    clutch pack (300 N m of preload, a ramp of 0.6) sends the drive to the front and holds the rear's slip under
    0.8 (over 0.15 g; 0.097 at 0.3 s since its locking torque is taken at the torque that flows, 0.1-0.8 before); a locked centre turns both axles as one and drives on the front's grip (over 0.2 g)."""
    car = four(**NO_AIDS, **{"body.driven_axle": "all", "differential.centre_kind": kind,
                             "differential.centre_preload": 300.0, "differential.centre_ramp": 0.6})
    run = launch(car, 0.3, throttle=0.4, ground=ice_behind(-0.4))
    assert np.all(run.mu_rear < 0.11) and np.all(run.mu_front > 0.5)  # the rear stayed on the ice
    accel = (run.vx[-1] - run.vx[0]) / (run.t[-1] - run.t[0])
    assert slip[0] < run.slip_ratio_rear.max() < slip[1]
    assert least * G < accel < most * G
    assert run.slip_ratio_front.max() < 0.05  # the front grips
    if kind == "locked":
        assert np.allclose(run.wheel_front[5:], run.wheel_rear[5:], rtol=1e-3)


@pytest.mark.parametrize(("kind", "spins"), [("open", True), ("limited_slip", False)])
def test_a_front_driven_car_spins_its_inside_front_wheel_out_of_a_tight_corner(kind, spins):
    """As the rear-driven car: the 15 m circle at 9 m/s in 3rd, then full throttle; on a front-driven car the
    inner front wheel, unloaded by the roll, spins on an open differential. The front tyres also steer the car,
    so it takes a stiffer clutch pack than the rear-driven car's (a preload of 100 N m and a ramp of 0.4 still let
    it reach a slip of 1.2)."""
    extra = {"body.driven_axle": "front", "differential.kind": kind, **NO_AIDS}
    if kind == "limited_slip":
        extra.update({"differential.preload": 200.0, "differential.ramp": 0.6})
    car = four(**extra)
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 9.0, 3)
    share = math.atan(car.body.wheelbase / 15.0) / car.steering.lock
    hold = SpeedHold(9.0, DT, share)
    run = drive(sim, 6.0, lambda t, tel: hold(t, tel) if t < 4.0
                else Inputs.from_keys(1, set(), throttle_pedal=1.0, steer=share))
    late = run.t > 4.0
    assert (run.slip_ratio_fl[late].max() > 1.0) == spins
    assert np.all(np.abs(run.slip_ratio_rl[late]) < 0.05)  # the rear wheels roll


@pytest.mark.parametrize("axle", ["front", "all"])
def test_traction_control_holds_the_driven_wheels_of_every_layout(axle):
    """Full throttle in 1st: without traction control the front-driven car's wheels spin; with it every driven
    wheel stays below 0.25 of slip after the first 0.3 s (the all-wheel-driven car needs it least)."""
    with_tcs = launch(four(**{"body.driven_axle": axle}), 2.0)
    late = with_tcs.t > 0.3
    for c in CORNERS:
        assert with_tcs[f"slip_ratio_{c}"][late].max() < 0.25
    if axle == "front":
        burnout = launch(four(**{"body.driven_axle": axle, "aids.tcs": 0}), 2.0)
        assert burnout.slip_ratio_fl.max() > 1.0 and np.abs(burnout.slip_ratio_rl).max() < 0.05


def snow_launch(axle: str, dt: float) -> np.recarray:
    """Full throttle in 1st from 3 m/s with the clutch locked, on snow (mu 0.3) everywhere, for 3 s."""
    sim = Simulation(four(**{"body.driven_axle": axle}), n=1, dt=dt)
    sim.set_ground(ice_behind(2000.0, 0.3))
    flying_start(sim, 3.0, 1)
    return drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, set(), throttle_pedal=1.0))


@pytest.mark.parametrize("axle", ["rear", "front"])
@pytest.mark.parametrize("dt", [1.0 / 120.0, 1.0 / 1000.0])
def test_traction_control_holds_tcs_slip_through_a_locked_clutch_at_any_dt(axle, dt):
    """With the clutch locked the engine gives up, within the frame, what leaves the driven wheels at tcs_slip, as on
    the single-track car (physics.aids.tcs_torque): the throttle cut that follows the slip alone held them at 0.137
    (0.133 at 1/1000 s) for a tcs_slip of 0.1, and their brakes worked against the engine, 51 N m at 1/120 s and 319
    at 1/1000 s."""
    run = snow_launch(axle, dt)
    late = run.t > 1.0
    assert run.clutch[late].min() == 1.0 and run.tcs_active[late].min() == 1.0
    for c in ("rl", "rr") if axle == "rear" else ("fl", "fr"):
        assert np.abs(run[f"slip_ratio_{c}"][late] - 0.1).max() < 2e-4, c
        assert np.abs(run[f"brake_torque_{c}"][late]).max() == 0.0, c


def test_traction_control_of_an_all_wheel_drive_car_holds_its_less_spinning_axle_near_tcs_slip():
    """All-wheel drive: the engine's cut holds the less spinning axle at tcs_slip, the brakes the other at
    tcs_brake_slip. The cut counts what the brakes on the other axle turn its wheels through their open differential
    (open_pair_over on each axle): 0.0983 to 0.0990 at 1/120 s and 0.0997 to 0.0999 at 1/1000 s. Before 0.3.24 it did
    not, and the braking sped the first axle up past its target, more at larger dt (0.110 to 0.120 at 1/120 s, 0.101 to
    0.102 at 1/1000 s; the throttle cut alone held 0.124 to 0.129)."""
    speeds = []
    for dt in (1.0 / 120.0, 1.0 / 1000.0):
        run = snow_launch("all", dt)
        late = run.t > 1.0
        least = np.min([run[f"slip_ratio_{c}"][late] for c in CORNERS], axis=0)
        most = np.max([run[f"slip_ratio_{c}"][late] for c in CORNERS], axis=0)
        assert np.abs(least - 0.1).max() < 0.002, (dt, least.min(), least.max())
        assert np.abs(most - 0.12).max() < 0.003, (dt, most.min(), most.max())  # the other axle, braked
        speeds.append(run.speed[-1])
    assert speeds[0] == pytest.approx(speeds[1], rel=1e-3)


def split_mu() -> np.ndarray:
    """Ground rows (physics.surface): snow (mu 0.3) right of the x axis, ice (mu 0.1) left of it."""
    snow = [[4.0, 0.3, -1.0, 0.0], [-1000.0, -50.0, 0.0, 0.0], [3000.0, -50.0, 0.0, 0.0], [3000.0, 0.0, 0.0, 0.0],
            [-1000.0, 0.0, 0.0, 0.0]]
    ice = [[4.0, 0.1, -1.0, 0.0], [-1000.0, 0.0, 0.0, 0.0], [3000.0, 0.0, 0.0, 0.0], [3000.0, 50.0, 0.0, 0.0],
           [-1000.0, 50.0, 0.0, 0.0]]
    return np.array(snow + ice)


def split_mu_launch(axle: str, dt: float) -> np.recarray:
    """Full throttle in 1st from 3 m/s with the clutch locked, the left wheels on ice (mu 0.1) and the right ones on
    snow (mu 0.3), for 3 s."""
    sim = Simulation(four(**{"body.driven_axle": axle}), n=1, dt=dt)
    sim.set_ground(split_mu())
    flying_start(sim, 3.0, 1)
    return drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, set(), throttle_pedal=1.0))


@pytest.mark.parametrize("axle", ["rear", "front"])
def test_traction_control_on_split_mu_brakes_the_icy_wheel_and_holds_the_other_at_tcs_slip_at_any_dt(axle):
    """Through an open differential the brake on the wheel on ice passes the drive across to the one on snow, which
    the engine's cut then holds at tcs_slip (0.1), the icy wheel at tcs_brake_slip (0.12), and the snow wheel's tyre
    drives the car as hard at 1/120 s as at 1/1000 s. Solved without that brake the cut left the snow wheel under its
    target, the brake then carried it past, and the two wheels swung between 0.05 and 0.16 and 0.14 and 0.21 at 1/120 s
    (0.107 and 0.128 at 1/1000 s), the car 10% slower at 3 s at 1/120 s than at 1/1000 s. With the brake in the solve
    but the partner turned up only after the body's step, its slips read right and its tyre pushed 8% less at 1/120 s
    than at 1/1000 s (1,047 against 1,141 N)."""
    ice, snow = ("rl", "rr") if axle == "rear" else ("fl", "fr")
    ends, pushes = [], []
    for dt in (1.0 / 120.0, 1.0 / 1000.0):
        run = split_mu_launch(axle, dt)
        late = run.t > 1.0
        assert run.clutch[late].min() == 1.0 and run.tcs_active[late].min() == 1.0
        assert np.abs(run[f"slip_ratio_{snow}"][late] - 0.1).max() < 1e-3, (dt, run[f"slip_ratio_{snow}"][late].min())
        assert np.abs(run[f"slip_ratio_{ice}"][late] - 0.12).max() < 1e-3, (dt, run[f"slip_ratio_{ice}"][late].min())
        assert run[f"brake_torque_{ice}"][late].min() > 100.0 and run[f"brake_torque_{snow}"][late].max() == 0.0
        ends.append(run.speed_kmh[-1])
        pushes.append(run[f"fx_{snow}"][late].mean())
    assert ends[0] == pytest.approx(ends[1], rel=0.005)
    assert pushes[0] == pytest.approx(pushes[1], rel=0.01)


@pytest.mark.parametrize("dt", [1.0 / 120.0, 1.0 / 500.0])
def test_traction_control_brakes_holding_both_wheels_of_an_open_axle_share_the_engine_as_the_differential_does(dt):
    """With tcs_slip (0.3) above tcs_brake_slip (0.12) the brakes hold both wheels of a split-mu launch against the
    engine's whole torque: the engine turns with the wheels' mean and the differential passes them equal torques, so
    the icy wheel's brake takes little more than the snow wheel's. Sized (i + c) / j times the bare wheel's each, the
    icy wheel's brake ran out first: at 1/120 s the wheels swapped slips (0.18 and 0.20, 0.18 and 0.12) frame by frame,
    at 1/500 s the icy one spun away to 3.5; sized for the bare wheels they sat at 0.29 to 0.34. (At 1/500 s the two
    brakes' split still swings from frame to frame for a while, 490 and 2,770 N m, then 3,030 and 1,920, the slips
    held.)"""
    car = four(**{"aids.tcs_slip": 0.3})
    top = 0.5 * car.brakes.force * car.body.wheel_radius
    sim = Simulation(car, n=1, dt=dt)
    sim.set_ground(split_mu())
    flying_start(sim, 3.0, 1)
    run = drive(sim, 4.0, lambda t, tel: Inputs.from_keys(1, set(), throttle_pedal=1.0))
    late = run.t > 1.5
    for c in ("rl", "rr"):
        assert np.abs(run[f"slip_ratio_{c}"][late] - 0.12).max() < 0.01, (c, run[f"slip_ratio_{c}"][late].max())
    brakes = np.stack([run.brake_torque_rl[late], run.brake_torque_rr[late]])
    assert brakes.max() < top and brakes.min() > 0.0
    assert np.abs(run.brake_torque_rl[late] - run.brake_torque_rr[late]).mean() < 0.2 * top


def test_traction_control_brakes_both_wheels_of_an_open_axle_against_the_engine_locked_to_them():
    """Light rear wheels (0.05 kg m^2 an axle) pulling away on split mu: as the launch clutch locks the engine, faster
    than the wheels, spins both past tcs_brake_slip, and with the throttle's cut spent their brakes slow the engine
    with them. Sized for the bare wheels they gave 170 N m of their 3,300 and the wheels stayed near 2 of slip for a
    second and a half."""
    car = four(**{"body.wheel_inertia_rear": 0.05, "body.wheel_inertia_front": 0.05})
    sim = Simulation(car, n=1, dt=1.0 / 120.0)
    sim.set_ground(split_mu())
    run = drive(sim, 6.0, lambda t, tel: Inputs.from_keys(1, {"throttle"}))
    locked = run.t >= run.t[np.argmax(run.clutch == 1.0)]
    both = (run.slip_ratio_rl > 0.5) & (run.slip_ratio_rr > 0.5) & locked
    assert locked.sum() > 120 and run.tcs_active[locked].min() == 1.0
    assert both.sum() * sim.dt < 0.25, both.sum() * sim.dt
    late = run.t > run.t[locked][0] + 1.0
    assert np.abs(run.slip_ratio_rr[late] - 0.1).max() < 0.02 and np.abs(run.slip_ratio_rl[late] - 0.12).max() < 0.02


@pytest.mark.parametrize("changes, dt", [({"differential.kind": "locked"}, 1.0 / 120.0),
                                         ({"differential.kind": "limited_slip", "differential.preload": 50.0,
                                           "differential.ramp": 0.3}, 1.0 / 2000.0)], ids=["locked", "limited_slip"])
def test_no_wheel_of_a_held_axle_shows_more_brake_than_its_brake_has(changes, dt):
    """A differential that holds its wheels as one shares their brakes; the telemetry gives each wheel's brake back its
    own, and what an aid added on the other wheel (traction control's beside stability control's) stays there: given
    in proportion to the wheels' own brakes, the rear wheel stability control braked read 4,814 N m of its 3,300 on a
    locked axle (split mu, full throttle, a bend each way; 4,202 N m on a limited-slip one at 1/2000 s), the sum of
    the four as it was."""
    car = four(**changes)
    top = 0.5 * car.brakes.force * car.body.wheel_radius
    sim = Simulation(car, n=1, dt=dt)
    sim.set_ground(split_mu())

    def driver(t, tel):
        return Inputs.from_keys(1, {"throttle", *(("right",) if 3.0 <= t < 5.0 else ()),
                                    *(("left",) if 5.0 <= t < 6.5 else ())})

    run = drive(sim, 8.0, driver)
    braked = np.stack([np.abs(run[f"brake_torque_{c}"]) for c in CORNERS])
    assert run.esc_active.max() == 1.0 and run.tcs_active.max() == 1.0
    assert braked.max() <= top * (1.0 + 1e-12), braked.max()


def test_a_held_groups_brake_torques_keep_their_sum_and_stay_within_each_brake_where_the_others_have_room():
    """at_own_brakes on its own (plain Python): a locked rear axle whose right wheel's brake (stability control's)
    gave the group 4,814 N m with the left one's (traction control's) shows 3,300 on the right and the rest on the
    left; where no brake has room (a stalled engine's drag carried with the handbrake, 3,688 N m a wheel) the sum
    stays, shared alike (it lost 777 N m when held to 3,300 a wheel)."""
    from physics.four_wheel import at_own_brakes

    own = getattr(at_own_brakes, "py_func", at_own_brakes)
    top = 3300.0
    shown = own(False, True, False, 0.0, 0.0, 2407.0, 2407.0, 0.0, 0.0, 0.0, 3300.0, top)
    assert shown[3] == top and shown[2] == pytest.approx(4814.0 - top) and sum(shown) == pytest.approx(4814.0)
    shown = own(False, True, False, 0.0, 0.0, 3688.0, 3688.0, 0.0, 0.0, 3688.0, 3688.0, top)
    assert shown[2] == shown[3] == pytest.approx(3688.0)
    shown = own(True, True, True, 1000.0, 1000.0, 3000.0, 4000.0, 0.0, 3300.0, 3300.0, 6000.0, top)
    assert max(shown) <= top * (1.0 + 1e-12) and sum(shown) == pytest.approx(9000.0)
    shown = own(True, True, True, 4000.0, 4000.0, 4000.0, 4000.0, 1.0, 1.0, 1.0, 5.0, top)
    assert sum(shown) == pytest.approx(16000.0) and min(shown) > top


def test_a_brake_on_one_wheel_of_an_open_axle_locked_to_the_engine_turns_the_pair_as_the_two_bodies_do():
    """open_axle_esc on its own (plain Python), bare wheels (j = i): a brake torque B on the left wheel for dt, the
    differential passing equal torques T to both wheels and the engine (c a wheel, 2 c on the carrier) turning with
    their mean. i dw_l = (T - B) dt, i dw_r = T dt, 2 c d(mean) = -2 T dt with d(mean) = (dw_l + dw_r) / 2: dw_l =
    -B dt (2 i + c) / (2 i (i + c)) and dw_r = B dt c / (2 i (i + c)). Taken on the bare wheel the left wheel turned
    -B dt / i and the right one not at all until after the body's step."""
    from physics.four_wheel import Held, open_axle_esc

    esc = getattr(open_axle_esc, "py_func", open_axle_esc)
    i, c, b, dt = 1.1, 5.35, 400.0, 1.0 / 120.0
    free_l, free_r = 30.0, 31.0
    bare = Held(free_l - b * dt / i, False, False, False)  # what aided gives the braked wheel on its own
    h_l, h_r, w_l, w_r, f_l, f_r = esc(bare, Held(free_r, False, False, False), bare.omega, free_r, free_l, free_r,
                                       i, i, False, False, b, 0.0, i, c)
    assert h_l.omega - free_l == pytest.approx(-b * dt * (2 * i + c) / (2 * i * (i + c)), rel=1e-12)
    assert w_r - free_r == pytest.approx(b * dt * c / (2 * i * (i + c)), rel=1e-12) and f_r == w_r
    # the carrier (the mean) moves as the torque B on wheels and engine together: -B dt / (2 (i + c))
    assert 0.5 * ((h_l.omega - free_l) + (w_r - free_r)) == pytest.approx(-b * dt / (2 * (i + c)), rel=1e-12)
    # a wheel its brake holds at a slip target (through ABS's valves) is left as it is, and so is its partner
    held = Held(bare.omega, True, True, False)
    assert esc(held, Held(free_r, False, False, False), bare.omega, free_r, free_l, free_r, i, i, False, False, b,
               0.0, i, c)[3] == free_r


def test_a_partner_turned_up_past_its_target_is_braked_at_it_as_the_two_bodies_take_it():
    """partner_tcs on its own (plain Python), bare wheels: the left wheel past its target by d_l, the right one short
    of its by -d_r. The brakes B_l, B_r end both at their targets where the differential passes equal torques T to the
    wheels and the engine (c a wheel) turns with their mean: i dw_l = (T - B_l) dt, i dw_r = (T - B_r) dt, c (dw_l +
    dw_r) = -2 T dt, so (i + c) (dw_l + dw_r) = -(B_l + B_r) dt and i (dw_l - dw_r) = -(B_l - B_r) dt. The right
    brake is positive only while the left one's lift would carry its wheel past its target; short of that it would
    have to push, and the answer says so."""
    from collections import namedtuple

    from physics.four_wheel import partner_tcs, tcs_speed

    solve = getattr(partner_tcs, "py_func", partner_tcs)
    target = getattr(tcs_speed, "py_func", tcs_speed)
    car = namedtuple("Car", "model_slip_speed body_wheel_radius")(1.0, 0.33)
    road = namedtuple("Road", "u")(10.0)
    i, c, dt, top, slip = 1.1, 5.35, 1.0 / 120.0, 3300.0, 0.12
    aim = target(car, road, 0.0, slip)
    assert aim == pytest.approx(10.0 * (1.0 + slip) / 0.33, rel=1e-15)
    omega_l, omega_r = aim + 3.0, aim - 0.5  # the right wheel 0.5 rad/s short of its target
    h_l, h_r, pull_l, pull_r, pushes = solve(car, road, road, omega_l, omega_r, i, i, 0.0, 0.0, slip, i, c, top, dt)
    assert not pushes and h_l.omega == pytest.approx(aim, rel=1e-14) and h_r.omega == pytest.approx(aim, rel=1e-14)
    dw_l, dw_r = h_l.omega - omega_l, h_r.omega - omega_r
    b_l = pull_l * i * (omega_l - h_l.omega)  # each brake's impulse [N m s], as the frame reads it from its pull
    b_r = pull_r * i * (omega_r - h_r.omega)
    assert b_r > 0.0 and b_l > b_r
    assert (i + c) * (dw_l + dw_r) == pytest.approx(-(b_l + b_r), rel=1e-12)
    assert i * (dw_l - dw_r) == pytest.approx(-(b_l - b_r), rel=1e-12)
    # Where the lift would not carry it past (B_r would be negative), the brake would push: the caller keeps open_tcs.
    lift = 3.0 * c / (2.0 * i + c)  # the right wheel's rise from the left brake alone, bare wheels
    assert solve(car, road, road, omega_l, aim - 1.01 * lift, i, i, 0.0, 0.0, slip, i, c, top, dt)[4]
    assert not solve(car, road, road, omega_l, aim - 0.99 * lift, i, i, 0.0, 0.0, slip, i, c, top, dt)[4]
    # Not torque enough: both brakes scaled alike, the one that needs the more at its whole torque.
    short = solve(car, road, road, omega_l, omega_r, i, i, 0.0, 0.0, slip, i, c, 100.0, dt)
    assert pull_l * i * (omega_l - short[0].omega) == pytest.approx(100.0 * dt, rel=1e-12)
    assert short[0].omega > aim and short[1].omega < aim


def test_the_front_axle_drives_only_a_four_wheel_car():
    from physics import ParamError

    with pytest.raises(ParamError, match=r"driven_axle = 'front': only a four-wheel car"):
        sedan("sedan_single_track", **{"body.driven_axle": "front"})


def test_a_wheel_unloads_to_zero_and_lifts_with_nothing_negative():
    """A high centre of mass and a very stiff front bar in a hard turn lift the inner front wheel: its load and
    forces are zero, and the axle's load is all on the outer wheel."""
    car = four(**NO_AIDS, **{"suspension.arb_front": 4e5, "suspension.roll_centre_front": 0.3, "body.cg_height": 0.8})
    run = steady_turn(car, 20.0, 0.2)
    for c in CORNERS:
        assert run[f"load_{c}"].min() >= 0.0
    lifted = run.load_fl == 0.0
    assert lifted.any()
    assert np.all(run.fx_fl[lifted] == 0.0) and np.all(run.fy_fl[lifted] == 0.0)
    total = sum(run[f"load_{c}"] for c in CORNERS)
    assert np.allclose(total, car.body.mass * car.model.gravity)


@pytest.mark.parametrize("esc", [1, 0])
def test_stability_control_keeps_a_tail_happy_car_from_spinning(esc):
    """A rear-biased car (all the bar's stiffness at the rear) braking in a 0.8 g turn spins; with ESC the
    outer front wheel is braked and it does not."""
    car = four(**{"aids.tcs": 0, "aids.esc": esc, "suspension.arb_rear": 60000.0, "suspension.arb_front": 0.0})
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 22.0, 3)
    hold = SpeedHold(22.0, DT, 0.11)

    def driver(t, tel):
        return hold(t, tel) if t < 5.0 else Inputs.from_keys(1, {"clutch"}, brake_pedal=0.6, steer=0.11)

    run = drive(sim, 7.0, driver)
    spun = np.abs(run.beta).max() > math.radians(30.0)
    assert spun == (esc == 0)
    if esc:
        assert run.esc_fr.max() == 1.0 and run.esc_fl.max() == 0.0  # the outer front wheel of a left turn


@pytest.mark.parametrize(("esc_slip", "abs_on"), [(0.3, 1), (1.0, 1), (0.3, 0)], ids=["0.3", "1.0", "0.3-abs-off"])
def test_stability_control_brakes_a_wheel_past_its_peak_but_locks_it_only_when_allowed(esc_slip, abs_on):
    """The rear-biased car's tail flicked out with the handbrake, then no pedal at all: stability control alone
    brakes the outer front wheel, through ABS's valves, to at most ``aids.esc_slip`` of slip; at 1 it may lock.
    With ABS switched off (``brakes.abs`` 0: the pedal's brake may lock a wheel) stability control's brake still
    holds its slip."""
    car = four(**{"aids.tcs": 0, "aids.esc_slip": esc_slip, "suspension.arb_rear": 60000.0,
                  "suspension.arb_front": 0.0, "brakes.abs": abs_on})
    sim = Simulation(car, n=1, dt=DT)
    flying_start(sim, 22.0, 3)
    hold = SpeedHold(22.0, DT, 0.11)

    def driver(t, tel):
        if t < 4.0:
            return hold(t, tel)
        keys = {"handbrake", "clutch"} if t < 4.4 else {"clutch"}
        return Inputs.from_keys(1, keys, steer=0.11 if t < 4.4 else 0.0)

    run = drive(sim, 7.0, driver)
    braked = (run.esc_fr > 0.0) & (np.arange(len(run)) * DT >= 4.4) & (run.brake == 0.0)
    # The outer front wheel of the car yawing left with its tail out to the right; the left front only once the car
    # yaws back the other way (the yaw rate's oversteer of a recovery that overshoots, past the slip bound).
    assert braked.sum() > 30 and run.esc_fl[run.yaw_rate >= 0.0].max() == 0.0
    slip = run.slip_ratio_fr[braked]
    if esc_slip < 1.0:
        # Held at the target against the road's speed at the frame's end; the channel is the frame's start.
        assert slip.min() >= -esc_slip - 0.01
        assert slip.min() <= -esc_slip + 0.05  # and it does go that far: past the tyre's peak (0.14)
        assert np.all(run.wheel_speed_fr[braked] > 0.0)
    else:
        assert np.any(run.wheel_speed_fr[braked] == 0.0)
    assert np.abs(run.beta).max() < math.radians(30.0)  # it recovers either way


def test_stability_control_brakes_an_inner_rear_wheel_with_the_pedal_pressed_too():
    """Understeering on a light pedal, the inner rear wheel gets stability control's brake on top of the pedal's:
    the rear select-low (both rear wheels the pedal's brake the one nearer to locking takes) holds for the pedal's
    part only."""
    def understeer(esc):
        sim = Simulation(four(**{"aids.esc": esc}), n=1, dt=DT)
        flying_start(sim, 15.0, 2)
        return drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, {"clutch"}, steer=0.4,
                                                               brake_pedal=0.3 if t > 0.5 else 0.0))

    run, without = understeer(1), understeer(0)
    braked = (run.esc_rl > 0.0) & (run.brake > 0.0)
    assert braked.sum() > 30 and run.esc_rr.max() == 0.0  # the inner rear wheel of a left turn
    assert (run.brake_torque_rl - run.brake_torque_rr)[braked].max() > 100.0
    # Stability control's part survives the select-low: the inner rear wheel gets more brake than without it, and
    # its slip stays within esc_slip. (Deeper than ABS's pedal slip it is not, in the bulk: the median over these
    # frames differs from the run without stability control by 5e-6. A check on the deepest frame once passed on a
    # one-frame spike, -0.076, of a wheel at its grip that met the road without its brake: physics.wheel.at_limit.)
    assert (run.brake_torque_rl - without.brake_torque_rl)[braked].max() > 100.0
    assert -0.3 - 0.01 <= run.slip_ratio_rl[braked].min()


def test_abs_holds_the_same_slip_in_gear_as_with_the_clutch_out():
    """A full stop from 22 m/s in 2nd: with the clutch up the engine turns with the rear wheels, and ABS lets their
    brakes off by what wheels and engine together need, so it holds the rear slip where it holds it declutched."""
    def stop(keys):
        sim = Simulation(four(), n=1, dt=DT)
        flying_start(sim, 22.0, 2)
        run = drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, keys, brake_pedal=1.0))
        held = (run.abs_rl > 0.0) & (run.vx > 5.0)
        assert held.sum() > 100
        return run.slip_ratio_rl[held].mean()

    in_gear, declutched = stop(set()), stop({"clutch"})
    assert declutched < -0.05  # ABS at work, near the tyre's peak
    assert in_gear == pytest.approx(declutched, rel=0.05)


@pytest.mark.parametrize("axle", ["rear", "front"])
def test_braking_in_gear_the_driven_wheels_keep_the_slip_of_their_tyres_force_at_any_dt(axle):
    """56 km/h in 2nd, the clutch up, a third of the brake pedal (no aid acts): the engine turns with the driven
    wheels, and the brakes slow it with them. Taken on the bare wheels, the brakes slowed them faster than wheels and
    engine went, the tyres' force on the body followed that speed, and the slip the driven wheels kept for the same
    force moved with dt: here -0.0052 at 1/120 s and -0.0108 at 1/1000 s at the rear (-1,186 and -1,187 N a tyre),
    now -0.0170 and -0.0169; front drive -0.0065 and -0.0147, now -0.0278 and -0.0277. (All-wheel drive still
    moves: physics.four_wheel.braked.)"""
    def slip(dt):
        sim = Simulation(four(**{"body.driven_axle": axle}), n=1, dt=dt)
        flying_start(sim, 56.0 / 3.6, 2)
        run = drive(sim, 1.5, lambda t, tel: Inputs.from_keys(1, set(), brake_pedal=0.35))
        end = run[-1]
        assert end.gear == 2 and end.abs_rl == 0.0 and end.abs_fl == 0.0 and end.tcs_active == 0.0
        corners = ("rl", "rr") if axle == "rear" else ("fl", "fr")
        # The torque the clutch passes to the wheels: the engine's, less what slowing its inertia with them gives
        # back, G (T_e - I_e d(omega_e)/dt) from the run's own engine speed (-74.6 and -74.1 N m here at 1/120 and
        # 1/1000 s). The differentials' solve's sum, the engine's inertia answering the wheels' motion without their
        # brakes, moved with dt (README's 0.3.11 paragraph: -575 and -715 N m in a stop from higher revs).
        p = sim.cars[0]
        ratio = p.gearbox.ratios[1] * p.gearbox.final_drive
        slowing = (run.rpm[-1] - run.rpm[-2]) * (2.0 * math.pi / 60.0) / dt
        passed = ratio * (run.engine_torque[-2] - p.engine.inertia * slowing)
        assert run.axle_torque[-2] == pytest.approx(passed, rel=1e-6)
        assert run.drive_force[-2] == pytest.approx(passed / p.body.wheel_radius, rel=1e-6)
        return (np.mean([end[f"slip_ratio_{c}"] for c in corners]), np.mean([end[f"fx_{c}"] for c in corners]),
                passed)

    (coarse, force_coarse, passed_coarse), (fine, force_fine, passed_fine) = slip(1.0 / 120.0), slip(1.0 / 1000.0)
    assert passed_coarse == pytest.approx(passed_fine, rel=0.02)
    assert force_coarse == pytest.approx(force_fine, rel=0.01)  # the same braking, whatever dt
    assert fine < -0.005  # the tyres do brake
    assert coarse == pytest.approx(fine, rel=0.02)


# Found by `carbench hunt --seed 2617` on tail_happy (0.3.5), the frame before it went wrong: rolling backwards in
# reverse at 4.8 m/s and turning, the engine stalled and being spun up by the clutch coming up (its pedal at 0.625),
# the inside rear wheel light (-1.6 rad/s beside -15.3). The clutch took the rear pair's summed inertia for its lock-up
# test where the open differential lets the light wheel answer alone, slipped where it should have locked, and the
# lock-up a frame later gave the car 151 J.
REVERSE_ONTO_A_STALLED_ENGINE = {
    "x": 112.32483478476021, "y": 8.683485080241407, "heading": 1.4365394084873315, "vx": -4.625596595682693,
    "vy": -1.2097581077423882, "yaw_rate": -0.801153206440986, "clutch_pedal": 0.6250000000000003, "gear": -1.0,
    "rpm": 344.5671752847591, "auto_clutch": 1.0, "accel": 4.919469120089346, "spinning": 1.0,
    "wheel_front": -14.136007372193571, "wheel_rear": -8.466567500417646, "stalled": 1.0, "accel_y": 5.033471748692808,
    "roll": 0.02861638988822624, "roll_rate": -0.0649871211627603, "yaw_target": -0.2750169571768958,
    "wheel_fl": -12.236856451543902, "wheel_fr": -16.03515829284324, "wheel_rl": -1.6457130858681328,
    "wheel_rr": -15.287421914967162}


def test_a_clutch_let_in_onto_a_stalled_engine_through_an_open_differential_makes_no_energy():
    p = preset_params("tail_happy")
    assert p.differential.kind == "open"
    sim = Simulation(p, dt=DT)
    state = sim.state.copy()
    for name, value in REVERSE_ONTO_A_STALLED_ENGINE.items():
        state[name] = value
    sim.restore(state, 1441)
    run = record(sim, 0.25, keys())  # no key: the clutch pedal comes up at its rate
    energy, engine_work = four_wheel_energy(p, run, DT)
    assert run.rpm[-1, 0] > 2.0 * run.rpm[0, 0] and np.all(run.gear[:, 0] == -1.0)  # the wheels spin the engine up
    gain = np.diff(energy) - engine_work
    assert gain.max() < 1e-4 * energy[0], f"{gain.max():.1f} J gained in frame {int(np.argmax(gain))}"


def _handbrake_in_first(name: str):
    """abs_spin_up_in_gear's start: 1st gear, clutch up, full throttle turning right, then the handbrake (still
    turning) at 6.3 s for a quarter of a second: its brake stops the inside rear wheel within a frame's first update
    (the carrier's momentum turns it on again), the outside one turns on."""
    def driver(t, sim_):
        if t < 3.933:
            return keys("right", "throttle")
        if t < 6.3:
            return keys("throttle")
        if t < 6.55:
            return keys("handbrake", "right")
        return keys()

    p = preset_params(name)
    return p, record(Simulation(p, dt=DT), 6.7, driver)


@pytest.mark.parametrize("name", ["sedan", "tail_happy"])
def test_a_brake_never_gives_more_than_its_whole_torque_and_the_engine_slows_only_as_much_as_it_pays_for(name):
    p, run = _handbrake_in_first(name)
    top = 0.5 * p.brakes.force * p.body.wheel_radius  # one wheel's whole brake
    braked = np.stack([run[f"brake_torque_{c}"][:, 0] for c in CORNERS])
    assert braked.max() <= top * (1.0 + 1e-9)  # traction control's brake came on top of the handbrake's: twice that
    # The engine turns with the rear wheels' carrier (clutch up, in 1st): a frame slows it by no more than every
    # torque on the wheels and the engine could, over the engine's inertia alone (the wheels' only make it less).
    handbrake = np.flatnonzero(run.handbrake[:, 0] > 0.0)
    assert handbrake.size > 20 and np.all(run.stalled[handbrake, 0] == 0.0) and np.all(run.gear[handbrake, 0] == 1.0)
    ratio = p.gearbox.ratios[0] * p.gearbox.final_drive
    k = handbrake[:-1]
    torque = (run.brake_torque_rl[k, 0] + run.brake_torque_rr[k, 0]
              + p.body.wheel_radius * (np.abs(run.fx_rl[k, 0]) + np.abs(run.fx_rr[k, 0]))
              + ratio * np.abs(run.engine_torque[k, 0]))
    most = DT * torque / (ratio * ratio * p.engine.inertia) * ratio * 60.0 / (2.0 * math.pi)  # [rpm]
    drop = run.rpm[k, 0] - run.rpm[k + 1, 0]
    worst = int(np.argmax(drop - most))
    assert np.all(drop <= most), (f"{drop[worst]:.0f} rpm lost at {run.t[k[worst], 0]:.3f} s, "
                                  f"where the torques pay for {most[worst]:.0f}")


@pytest.mark.parametrize("where", ["road", "tyres"])
def test_stability_control_on_an_icy_road_asks_for_the_yaw_rate_the_road_allows(where):
    """ESC's yaw reference was capped at the car's own tyres.mu g / V: on a road surface of mu 0.2 (the car's tyres
    dry) it asked for the dry road's yaw rate, called the car understeering and braked its inside rear wheel, which
    started the spin it is there to stop (max body slip 45 deg, against 34 on the same ice as the car's own mu). Now
    the cap is the road's under the car, and on either ice it brakes the outer front wheel against the oversteer.

    The body slip then grew to 30 deg (22 on the car's own ice) with stability control braking that wheel on the yaw
    rate alone; its slip-angle bound and engine cut hold it under 16 deg (12.7 and 14.1). The inner rear wheel is
    braked against understeer only once the slide is caught, within half that bound: braked while the tail was out,
    it yawed the car back into the slide."""
    ice = {"tyres.mu": 0.2} if where == "tyres" else {}
    car = four(**{"aids.esc": 1, **ice})
    sim = Simulation(car, n=1, dt=DT)
    if where == "road":
        sim.set_ground(ice_behind(5000.0, mu=0.2))
    flying_start(sim, 12.2, 2)  # 44 km/h in 2nd, off the throttle with the clutch up: the engine brakes the rear
    run = drive(sim, 6.0, lambda t, tel: Inputs.from_keys(1, set(), steer=0.12))
    braked = np.flatnonzero(run.esc_fl + run.esc_fr + run.esc_rl + run.esc_rr)
    assert len(braked)
    first = braked[0]
    assert (run.esc_fr[first], run.esc_rl[first]) == (1.0, 0.0)  # the outer front wheel of this left turn
    inner_rear = run.esc_rl > 0.0
    assert np.abs(run.beta[inner_rear]).max(initial=0.0) <= 0.5 * car.aids.esc_slip_angle + math.radians(0.5)
    assert np.abs(run.beta).max() < math.radians(16.0)


def ice_on_the_left(mu: float = 0.2) -> np.ndarray:
    """Ground rows (physics.surface) of ice under the car's left wheels (y > 0), the right ones on the dry road."""
    return np.array([[4.0, mu, -1.0, 0.0], [-1000.0, 0.0, 0.0, 0.0], [5000.0, 0.0, 0.0, 0.0],
                     [5000.0, 50.0, 0.0, 0.0], [-1000.0, 50.0, 0.0, 0.0]])


def rear_torque_split(changes: dict, dt: float) -> np.ndarray:
    """|T_right - T_left| / (T_left + T_right) of the rear wheels' drive torques per frame, 1 to 3 s into a full
    throttle launch in 1st with ice under the left wheels: each wheel's torque I w' + R Fx, from its speed and its
    tyre's force (for the open differential this reads the two halves of the axle's torque equal, to the bit's
    rounding)."""
    car = four(**NO_AIDS, **changes)
    sim = Simulation(car, n=1, dt=dt)
    sim.set_ground(ice_on_the_left())
    flying_start(sim, 3.0, 1)
    run = drive(sim, 3.0, lambda t, tel: Inputs.from_keys(1, set(), throttle_pedal=1.0))
    inertia, radius = 0.5 * car.body.wheel_inertia_rear, car.body.wheel_radius
    torque = {c: inertia * np.diff(run[f"wheel_speed_{c}"]) / dt + radius * run[f"fx_{c}"][1:] for c in ("rl", "rr")}
    keep = (run.t[1:] > 1.0)
    return (np.abs(torque["rr"] - torque["rl"]) / (torque["rl"] + torque["rr"]))[keep]


@pytest.mark.parametrize(("changes", "share"), [
    ({"differential.kind": "limited_slip", "differential.preload": 0.0, "differential.ramp": 0.4}, 0.4),
    ({"differential.kind": "torque_sensing", "differential.bias_ratio": 3.0}, 0.5),  # (B - 1) / (B + 1)
], ids=["ramp-0.4", "bias-3"])
@pytest.mark.parametrize("dt", [1.0 / 120.0, 1.0 / 1000.0])
def test_a_slipping_differential_passes_its_locking_torque_at_any_dt(changes, share, dt):
    """With one wheel on ice the differential slips at its locking torque, a share of the torque through it. That
    share was taken of the torque before the coupling, which the engine locked to the wheels changes: 0.30 of the
    axle's torque across a ramp of 0.40 at 1/120 s (0.38 at 1e-4 s), a bias ratio of 3 coming out 2.1."""
    split = rear_torque_split(changes, dt)
    assert np.median(split) == pytest.approx(share, rel=0.02)
    assert np.all(np.abs(split - share) < 0.03)
