"""tyres.nominal_load: the four-wheel car's tyres with a reference load of their own (MF-Tyre's FNOMIN).

The cornering stiffness saturates with the load as MF-Tyre's K_y = p_Ky1 Fz0 sin(2 atan(Fz / (p_Ky2 Fz0)))
(Pacejka, Tyre and Vehicle Dynamics, 2012, ch. 4.3.2), written out here from that equation. Referred to each
wheel's own static load (nominal_load = 0) the stiffness at the static load is B C D whatever the load, so moving
weight between the axles leaves a linear car's understeer gradient where it was; referred to a fixed nominal load,
the heavier axle's tyres give less stiffness per unit of load, and weight moved rearwards takes understeer away.

The car is the four-wheel sedan made near-linear as the closed-form tests' single-track one is (friction eight
times the road's and B scaled down by as much, no CG height so no load moves across the car), its saturation
(tyres.cornering_load) kept.
"""

from __future__ import annotations

import math

import pytest

from physics import load_preset
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.kpi import G
from workbench.manoeuvres.runner import Car, run_jobs

SCALE = 8.0
NOMINAL = 4000.0  # [N] a passenger-car tyre's FNOMIN (Pacejka 2012's example tyre, 205/60R15: 4,000 N)


def near_linear(**values):
    p = load_preset("sedan").params
    t = p.tyres
    f = 1.0 / SCALE
    return p.with_values({"tyres.mu": SCALE * t.mu, "tyres.b_front": t.b_front * f, "tyres.b_rear": t.b_rear * f,
                          "tyres.b_long": t.b_long * f, "body.cg_height": 0.0, **values})


def axle_stiffness(p, fz: float, b: float) -> float:
    """[N/rad] An axle's two tyres at the wheel load ``fz``: B C D with D = lateral_share mu Fz at the reference
    load, saturating in Fz as MF-Tyre's K_y (p_Ky2 = tyres.cornering_load)."""
    t = p.tyres
    q, ref = t.cornering_load, (t.nominal_load or fz)
    return 2.0 * b * t.c * t.lateral_share * t.mu * ref * math.sin(2.0 * math.atan(fz / (q * ref))) / math.sin(
        2.0 * math.atan(1.0 / q))


def gradient_deg_per_g(p) -> float:
    """K = m / L (l_r / C_f - l_f / C_r) (Gillespie, eq. 6-15), in deg/g."""
    b = p.body
    lf = b.wheelbase - b.lr
    weight = b.mass * p.model.gravity
    cf = axle_stiffness(p, 0.5 * weight * b.lr / b.wheelbase, p.tyres.b_front)
    cr = axle_stiffness(p, 0.5 * weight * lf / b.wheelbase, p.tyres.b_rear)
    return b.mass / b.wheelbase * (b.lr / cf - lf / cr) * 180.0 / math.pi * G


def measured(p) -> float:
    m = CATALOGUE["iso4138"]
    (result,) = m.run([Car(p, "near-linear four-wheel sedan")], lambda jobs: run_jobs(jobs, m.channels))
    return {k.key: k.value for k in result}["understeer_gradient"]


REAR_HEAVY = 0.45 * 2.85  # [m] lr for 55% of the weight on the rear axle (the sedan's is 50%)


def test_with_a_nominal_load_weight_moved_rearwards_takes_understeer_away_as_mf_tyre_says():
    even, rear = near_linear(**{"tyres.nominal_load": NOMINAL}), near_linear(**{"tyres.nominal_load": NOMINAL,
                                                                                "body.lr": REAR_HEAVY})
    assert measured(even) == pytest.approx(gradient_deg_per_g(even), rel=0.02)
    assert measured(rear) == pytest.approx(gradient_deg_per_g(rear), rel=0.02)
    assert gradient_deg_per_g(rear) < gradient_deg_per_g(even) - 0.2  # [deg/g] a change the test can tell


def test_referred_to_each_wheels_static_load_the_weight_split_leaves_the_linear_gradient():
    even, rear = near_linear(), near_linear(**{"body.lr": REAR_HEAVY})  # the closed form is the same for both
    assert measured(rear) == pytest.approx(measured(even), rel=0.01)
    assert measured(even) == pytest.approx(gradient_deg_per_g(even), rel=0.02)


def test_the_shipped_presets_keep_their_static_loads_as_the_reference():
    # nominal_load 0 on every shipped four-wheel preset: their recordings replay as before the parameter existed.
    for name in ("sedan", "tail_happy"):
        assert load_preset(name).params.tyres.nominal_load == 0.0


@pytest.mark.parametrize("load", [100.0, 900.0, 16_000.0])
def test_a_reference_load_no_tyre_of_the_car_could_have_is_refused_in_one_line(load):
    """One step of the panel's slider off 0 (100 N against the sedan's 3,924 N a wheel) left 0.3% of the cornering
    stiffness and friction at its floor: a reference load is within 4 times the wheels' static loads."""
    with pytest.raises(ValueError) as refused:
        load_preset("sedan").params.with_values({"tyres.nominal_load": load})
    assert str(refused.value) == (f"tyres.nominal_load = {load:g} N: a tyre's reference load within 4 times its wheel's "
                                  "static load, 981 to 15695 N on this car (0 takes each wheel's own)")
    for fits in (981.0, 15_695.0):
        assert load_preset("sedan").params.with_values({"tyres.nominal_load": fits}).tyres.nominal_load == fits
