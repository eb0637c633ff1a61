"""ISO 7401 step: the yaw damping ratio and natural frequency of the second-order fit are the car's, not the slow
fall of its speed over the run.

The step holds the throttle, so the car slows a little while it turns (the near-linear sedan from 22.21 m/s at the
step to 21.82 m/s 5 s later) and its steady yaw-rate gain follows. Fitted with a constant gain, that drift went into
the fit's a0: the near-linear car's natural frequency came out 1.24 Hz where its linear bicycle's is 1.51 Hz, and the
linear bicycle itself, run at that falling speed, gave 1.27 Hz.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from linear_car import bicycle_matrices, linear_sedan

from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.manoeuvres.transient import second_order_fit, step_response


def bicycle_yaw_at(p, speed: np.ndarray, t: np.ndarray, steer: np.ndarray) -> np.ndarray:
    """The linear bicycle's yaw rate with its speed ``speed`` per frame (each step exact at that frame's speed, the
    steer held over it)."""
    dt = t[1] - t[0]
    x = np.zeros(2)
    out = np.empty(len(t))
    for k in range(len(t)):
        out[k] = x[1]
        a, b = bicycle_matrices(p, float(speed[k]))
        w, vecs = np.linalg.eig(a * dt)
        phi = (vecs @ np.diag(np.exp(w)) @ np.linalg.inv(vecs)).real
        x = phi @ x + np.linalg.solve(a, (phi - np.eye(2)) @ b) * steer[k]
    return out


def own_mode(p, v: float) -> tuple[float, float]:
    """The linear bicycle's yaw mode at ``v``: damping ratio and natural frequency [rad/s]."""
    a, _ = bicycle_matrices(p, v)
    w = math.sqrt(np.linalg.det(a))
    return -np.trace(a) / (2.0 * w), w


@pytest.mark.parametrize("span", [1.5, 3.0, 5.0])
def test_the_fit_finds_the_bicycles_mode_while_its_speed_falls(span):
    p = linear_sedan()
    dt = 1.0 / 120.0
    t = np.arange(0.0, 20.0, dt)
    steer = np.clip((t - 14.0) / 0.054, 0.0, 1.0) * 0.03
    speed = 22.21 - 0.08 * np.clip(t - 14.0, 0.0, None)  # as the near-linear sedan's step slows
    zeta, omega = second_order_fit(t, steer, bicycle_yaw_at(p, speed, t, steer), 14.0, span)
    want_zeta, want_omega = own_mode(p, 22.21)
    assert omega == pytest.approx(want_omega, rel=0.02)
    assert zeta == pytest.approx(want_zeta, rel=0.02)


def test_the_near_linear_cars_step_gives_its_bicycles_natural_frequency():
    car = Car(linear_sedan(), "near-linear sedan")
    m = CATALOGUE["iso7401_step"]
    (result,) = m.run([car], lambda jobs: run_jobs(jobs, m.channels))
    got = {k.key: k.value for k in result}
    _, runs = m.scaled_runs([car], lambda jobs: run_jobs(jobs, m.channels), m.base_script())
    run = runs[0]
    t0 = step_response(run.t, run["steer"], run["yaw_rate"], float(run.t[-1]))["t0"]
    zeta, omega = own_mode(car.params, float(np.interp(t0, run.t, run["speed"])))
    assert got["yaw_frequency"] == pytest.approx(omega / (2.0 * math.pi), rel=0.05)
    assert got["yaw_damping"] == pytest.approx(zeta, rel=0.05)
