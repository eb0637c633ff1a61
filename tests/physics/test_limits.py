"""The model at the edges of its allowed parameters: full lock at the 80 deg limit, a very light car."""

import math

import numpy as np
import pytest

from physics import Inputs, Simulation, channel_names, load_preset
from physics.groups import WHEEL_ANGLE_MAX

DYNAMIC = ["sedan", "classic", "f1tenth"]


def _finite(telemetry) -> bool:
    return all(np.isfinite(telemetry[name]).all() for name in channel_names())


@pytest.mark.parametrize("name", DYNAMIC)
@pytest.mark.parametrize("dt", [1 / 120, 1 / 60], ids=["dt120", "dt60"])
def test_full_lock_at_the_limit_stays_finite_and_slower_than_straight(name, dt):
    p = load_preset(name).params
    if p.model.layout == "four_wheel":  # the lock that turns the inner wheel (full Ackermann) to the limit
        top = math.tan(WHEEL_ANGLE_MAX)
        lock = math.atan(top * p.body.wheelbase / (p.body.wheelbase + 0.5 * p.body.track * top)) * (1.0 - 1e-12)
        p = p.with_value("steering.lock", lock)
        assert max(p.full_lock_wheel_angles()) == pytest.approx(WHEEL_ANGLE_MAX, abs=1e-9)
    else:
        p = p.with_value("steering.lock", WHEEL_ANGLE_MAX)
    straight, turning = Simulation(p, dt=dt), Simulation(p, dt=dt)
    for k in range(int(12.0 / dt)):
        straight.step(Inputs.from_keys(1, {"throttle"}))
        tel = turning.step(Inputs.from_keys(1, {"throttle"} if k * dt < 4.0 else {"throttle", "left"}))
        assert _finite(tel), f"non-finite telemetry at {k * dt:.3f} s"
    # Turning at full lock only costs speed; a numerical energy source would make it faster.
    assert abs(turning.channel("speed")[0]) < straight.channel("speed")[0]


@pytest.mark.parametrize("mass", [0.05, 0.01])
def test_a_very_light_car_stays_finite(mass):
    p = load_preset("sedan").params.with_value("body.mass", mass)
    sim = Simulation(p, dt=1 / 60)
    for k in range(600):
        tel = sim.step(Inputs.from_keys(1, {"throttle", "left"} if k > 100 else {"throttle"}))
        assert _finite(tel), f"non-finite telemetry at frame {k}"
    # drag and rolling resistance can stop the car but never throw it backwards
    assert np.all(np.isfinite(sim.state.vx))


@pytest.mark.parametrize("name", ["manual003", "classic"])
def test_with_the_stop_rule_off_a_car_braked_to_a_crawl_stays_finite(name):
    """model.stop_speed = 0 (allowed) turns the stop rule off: a car braked while steering then slows by a share
    each frame and never stops, down to speeds of 1e-160 and less, whose squares are 0. The manual car's frame
    divided by such a square (nan at 6.03 s) until the blend's energy share and hypot were made safe there."""
    from physics import records

    dt = 1 / 120
    p = load_preset(name).params.with_value("model.stop_speed", 0.0)
    inputs = np.zeros((int(12.0 / dt), 1), dtype=records.INPUTS)
    t = np.arange(len(inputs)) * dt
    inputs["throttle"][t < 3.0] = True
    inputs["brake"][(t >= 3.0) & (t < 6.0)] = True
    inputs["right"][(t >= 3.0) & (t < 6.0)] = True
    telemetry = Simulation(p, dt=dt, parallel=False).run(inputs)  # the guard raises at a non-finite value
    assert _finite(telemetry)
    speed = np.abs(telemetry["speed"][:, 0])
    assert speed[int(3.0 / dt)] > 1.0 and speed[-1] < 1e-150  # it drove, and it crept down to where squares are 0


@pytest.mark.parametrize("dt", [1 / 120, 0.05], ids=["dt120", "dt_max"])
def test_at_the_narrowest_limiter_band_an_idling_car_stays_where_it_is(dt):
    """The idle control opens the throttle over engine.limiter_band. At 0.01 rpm (allowed then) it was a switch the
    rounding flipped: the engine hunted between 790 and 820 rpm and the automatic clutch crept the car 15 mm in 30 s.
    The band is now at least 1 rpm; there, with the lightest engine and the strongest idle control, nothing moves."""
    from physics import ParamError, records

    p = load_preset("sedan").params
    with pytest.raises(ParamError):
        p.with_value("engine.limiter_band", 0.5)
    p = (p.with_value("engine.limiter_band", 1.0).with_value("engine.inertia", p.info("engine.inertia").lo)
         .with_value("engine.idle_authority", p.info("engine.idle_authority").hi))
    telemetry = Simulation(p, dt=dt, parallel=False).run(np.zeros((int(30.0 / dt), 1), dtype=records.INPUTS))
    assert np.all(telemetry["x"] == 0.0) and np.all(telemetry["y"] == 0.0)
    assert np.all(telemetry["rpm"] == p.engine.idle_rpm)


def test_the_lateral_shape_factor_is_held_to_0_3_and_up():
    """With a lateral curve nearly flat (C of 0.01 to 0.1) beside a stiff longitudinal one (b_long 100 to 200), the
    sedan braked in a bend sped up, 190 J in a frame (carbench 0.3.24 took C down to 0.01). C = 0.3 is the least."""
    from physics import ParamError

    sedan = load_preset("sedan").params
    with pytest.raises(ParamError, match=r"tyres.c = 0.1: .*allowed: 0.3 <= value < 2"):
        sedan.with_value("tyres.c", 0.1)
    assert sedan.with_values({"tyres.c": 0.3, "tyres.b_long": 200.0}).tyres.c == 0.3


@pytest.mark.parametrize("name", ["sedan", "f1tenth"])
def test_at_the_largest_lateral_shape_factor_a_coasting_car_only_slows(name):
    """tyres.c is held below 2: past it sin(C atan(B alpha)) changes sign at large slip, the lateral force pushed
    along the slide, and a car spun up in first and left to coast in neutral sped up to 24 m/s at C = 2.5, 41 at 3.
    Coasting, its kinetic energy (body, yaw and wheels; the engine is out of gear) falls in every frame. Its speed
    alone may rise for a while as the spin's yaw is turned into the slide (the sedan's since carbench 0.3.17, whose
    launch at full lock reaches the coast spinning otherwise: up to 0.006 m/s a frame for 65 frames, while the energy
    fell by at least 3 J a frame), but it ends below where the coast began."""
    from physics import ParamError, records

    dt = 1 / 120
    with pytest.raises(ParamError, match=r"tyres.c = 2.0: .*allowed: 0.3 <= value < 2"):
        load_preset(name).params.with_value("tyres.c", 2.0)
    p = load_preset(name).params.with_value("tyres.c", 1.99)
    inputs = np.zeros((int(17.5 / dt), 1), dtype=records.INPUTS)
    inputs["gear_on"] = True
    inputs["gear_value"][: int(2.5 / dt)] = 1  # first gear, full throttle, full lock: a spin
    inputs["throttle"][: int(2.5 / dt)] = True
    inputs["left"][: int(2.5 / dt)] = True  # then neutral and no key: it coasts
    telemetry = Simulation(p, dt=dt, parallel=False).run(inputs)
    speed = np.hypot(telemetry["vx"][:, 0], telemetry["vy"][:, 0])
    coasting = speed[int(3.5 / dt):]
    assert coasting[0] > 1.0 and coasting[-1] < 0.6 * coasting[0]  # it was moving, and it slowed
    b = p.body
    energy = (0.5 * b.mass * speed ** 2 + 0.5 * b.yaw_inertia * telemetry["yaw_rate"][:, 0] ** 2
              + 0.25 * b.wheel_inertia_front * (telemetry["wheel_speed_fl"][:, 0] ** 2
                                                + telemetry["wheel_speed_fr"][:, 0] ** 2)
              + 0.25 * b.wheel_inertia_rear * (telemetry["wheel_speed_rl"][:, 0] ** 2
                                               + telemetry["wheel_speed_rr"][:, 0] ** 2))
    assert np.all(np.diff(energy[int(3.5 / dt):]) <= 1e-9), np.max(np.diff(energy[int(3.5 / dt):]))
