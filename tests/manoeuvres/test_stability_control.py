"""Sine with dwell (UN R140 / FMVSS 126 S5.2) on the four-wheel cars: what stability control is for."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main

ROBOT_RATE = "steering.rate=81"  # [deg/s of road wheel] 1,215 deg/s of handwheel at 15:1: the keys' rate of the road
# presets (1,031) holds back the 270 deg run's sine (1,187), whose runs then are no runs of the test (no verdicts)


def swd(capsys, preset: str, *sets: str) -> dict[str, dict]:
    args = ["manoeuvre", "r140_swd", "--preset", preset, "--json"]
    for s in (ROBOT_RATE, *sets):
        args += ["--set", s]
    main(args)
    doc = json.loads(capsys.readouterr().out)
    (car,) = doc["manoeuvres"]["r140_swd"]["cars"]
    return {k["key"]: k for k in car}


def verdicts(kpis: dict[str, dict]) -> dict[str, bool]:
    return {key: kpis[key]["passed"] for key in ("yaw_ratio_1.00", "yaw_ratio_1.75", "lateral_displacement")}


def test_the_sedan_passes_with_stability_control_on(capsys):
    kpis = swd(capsys, "sedan")
    assert all(verdicts(kpis).values()), verdicts(kpis)
    assert kpis["runs"]["value"] >= 10  # up to 6.5 A or 270 deg of handwheel, S7.9


@pytest.mark.parametrize(("esc", "passes"), [(0, False), (1, True)])
def test_the_tail_happy_car_fails_without_stability_control_and_passes_with_it(capsys, esc, passes):
    kpis = swd(capsys, "tail_happy", f"aids.esc={esc}")
    v = verdicts(kpis)
    if passes:
        assert all(v.values()), v
    else:
        # It spins: the yaw rate 1 s after the steer ends is still above 35% of its peak (S5.2.1),
        # while the car still moves sideways enough (S5.2.3): the failure is one of stability.
        assert v["yaw_ratio_1.00"] is False and v["yaw_ratio_1.75"] is False
        assert kpis["yaw_ratio_1.00"]["value"] > 35.0
