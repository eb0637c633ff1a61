"""The near-linear sedan of the closed-form tests, and the linear bicycle (2-DOF) written out from its equations.

The single-track sedan's tyres with a friction coefficient ten times the road's and B scaled down by as much, so
that each axle's cornering stiffness C = B C D (Pacejka's slope at zero slip, with D = lateral_share
mu Fz) is the sedan's while the test's slip angles stay deep in the linear part of the curve; no CG
height, so no load moves between the axles (the linear bicycle has none). Nothing here calls the
model's own functions: the expected values are the textbook's.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from physics import CarParams, load_preset

SCALE = 8.0


@cache
def linear_sedan() -> CarParams:
    p = load_preset("sedan_single_track").params
    t = p.tyres
    f = t.mu / (SCALE * t.mu)
    return p.with_values({"tyres.mu": SCALE * t.mu, "tyres.b_front": t.b_front * f, "tyres.b_rear": t.b_rear * f,
                          "tyres.b_long": t.b_long * f, "body.cg_height": 0.0})


def stiffness(p: CarParams) -> tuple[float, float]:
    """Front and rear axle cornering stiffness [N/rad]: B C D with D = lateral_share mu Fz (static loads)."""
    b, t = p.body, p.tyres
    weight = b.mass * p.model.gravity
    lf = b.wheelbase - b.lr
    fz_f, fz_r = weight * b.lr / b.wheelbase, weight * lf / b.wheelbase
    d = t.lateral_share * t.mu
    return t.b_front * t.c * d * fz_f, t.b_rear * t.c * d * fz_r


def understeer_gradient(p: CarParams) -> float:
    """K = m / L (l_r / C_f - l_f / C_r) [rad per m/s^2] (Gillespie, Fundamentals of Vehicle Dynamics, eq. 6-15)."""
    b = p.body
    cf, cr = stiffness(p)
    return b.mass / b.wheelbase * (b.lr / cf - (b.wheelbase - b.lr) / cr)


def yaw_gain(p: CarParams, v: float) -> float:
    """Steady yaw-rate gain r / delta = V / (L + K V^2) [1/s]."""
    return v / (p.body.wheelbase + understeer_gradient(p) * v * v)


def bicycle_matrices(p: CarParams, v: float) -> tuple[np.ndarray, np.ndarray]:
    """The linear bicycle x' = A x + B delta, x = (v_y, r) (Rajamani, Vehicle Dynamics and Control, eq. 2.31)."""
    b = p.body
    m, iz, lr = b.mass, b.yaw_inertia, b.lr
    lf = b.wheelbase - lr
    cf, cr = stiffness(p)
    a = np.array([[-(cf + cr) / (m * v), -v - (cf * lf - cr * lr) / (m * v)],
                  [-(cf * lf - cr * lr) / (iz * v), -(cf * lf * lf + cr * lr * lr) / (iz * v)]])
    return a, np.array([cf / m, cf * lf / iz])


def damping(p: CarParams, v: float) -> float:
    """The yaw mode's damping ratio: -trace(A) / (2 sqrt(det A))."""
    a, _ = bicycle_matrices(p, v)
    return -np.trace(a) / (2.0 * math.sqrt(np.linalg.det(a)))


def bicycle_yaw(p: CarParams, v: float, t: np.ndarray, steer: np.ndarray) -> np.ndarray:
    """The linear bicycle's yaw rate for the road-wheel angle ``steer`` over ``t`` (exact for a steer held
    over each step: the state transition by the matrix exponential)."""
    a, bvec = bicycle_matrices(p, v)
    dt = t[1] - t[0]
    w, vecs = np.linalg.eig(a * dt)
    phi = (vecs @ np.diag(np.exp(w)) @ np.linalg.inv(vecs)).real
    gamma = np.linalg.solve(a, (phi - np.eye(2)) @ bvec)
    x = np.zeros(2)
    out = np.empty(len(t))
    for k in range(len(t)):
        out[k] = x[1]
        x = phi @ x + gamma * steer[k]
    return out
