"""The bench's compiled peer: the single-track model as F1TENTH's gym steps it, compiled with numba, beside
carbench's kernel in the same run.

The model is CommonRoad's single-track model (M. Althoff, CommonRoad: Vehicle Models, 2020, sec. 5; the
``vehicle_dynamics_st`` that F1TENTH's gym compiles with numba): seven states (x, y, steering angle,
speed, yaw, yaw rate, body slip), linear tyres with load transfer from the longitudinal acceleration,
and the kinematic model below 0.1 m/s. Inputs are a steering rate and an acceleration, held for the
frame; explicit Euler at the bench's dt. Its parameters are CommonRoad's vehicle 2 (a BMW 320i).

It does less per step than carbench's single-track car (no engine, clutch, gearbox, wheel speeds or
combined slip; no telemetry, no guard): the figure says how fast a minimal compiled car runs on
this machine, which is what carbench's batch is compared with.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np
from numba import prange

# CommonRoad vehicle 2 (commonroad-vehicle-models 3.0, parameters_vehicle2: a BMW 320i), rounded
MASS = 1093.3  # [kg] m
LF = 1.1562  # [m] a: centre of mass to the front axle
LR = 1.4227  # [m] b
H_CG = 0.6137  # [m] h_s
I_Z = 1791.6  # [kg m^2] I_z
MU = 1.0489  # tire.p_dy1
C_SF = 20.898  # [1/rad] -tire.p_ky1 / tire.p_dy1: cornering stiffness per unit load and friction
C_SR = 20.898  # [1/rad]
G = 9.81  # [m/s^2]
STEER_LIMIT = 1.066  # [rad] steering.max
STATES = 7


@numba.njit(fastmath=False, error_model="numpy", cache=True)
def _st_rates(x, steer_rate, accel, out):
    """dx/dt of CommonRoad's single-track model (vehicle_dynamics_st) into ``out``."""
    delta, v, psi, psi_dot, beta = x[2], x[3], x[4], x[5], x[6]
    lwb = LF + LR
    if abs(v) < 0.1:  # the kinematic model at walking pace
        out[0] = v * math.cos(psi + beta)
        out[1] = v * math.sin(psi + beta)
        out[2] = steer_rate
        out[3] = accel
        out[4] = v * math.cos(beta) / lwb * math.tan(delta)
        d_beta = (LR * steer_rate) / (lwb * math.cos(delta) ** 2 * (1.0 + (math.tan(delta) ** 2 * LR / lwb) ** 2))
        out[5] = 1.0 / lwb * (accel * math.cos(beta) * math.tan(delta) - v * math.sin(beta) * d_beta * math.tan(delta)
                              + v * math.cos(beta) * steer_rate / math.cos(delta) ** 2)
        out[6] = d_beta
        return
    gr = G * LR - accel * H_CG
    gf = G * LF + accel * H_CG
    out[0] = v * math.cos(psi + beta)
    out[1] = v * math.sin(psi + beta)
    out[2] = steer_rate
    out[3] = accel
    out[4] = psi_dot
    out[5] = -MU * MASS / (v * I_Z * lwb) * (LF * LF * C_SF * gr + LR * LR * C_SR * gf) * psi_dot \
        + MU * MASS / (I_Z * lwb) * (LR * C_SR * gf - LF * C_SF * gr) * beta \
        + MU * MASS / (I_Z * lwb) * LF * C_SF * gr * delta
    out[6] = (MU / (v * v * lwb) * (C_SR * gf * LR - C_SF * gr * LF) - 1.0) * psi_dot \
        - MU / (v * lwb) * (C_SR * gf + C_SF * gr) * beta + MU / (v * lwb) * C_SF * gr * delta


@numba.njit(parallel=True, fastmath=False, error_model="numpy", cache=True)
def st_batch(states, steer_rate, accel, dt, frames):
    """Advance ``states`` (N, 7) by ``frames`` explicit-Euler steps with each car's inputs held."""
    n = states.shape[0]
    for i in prange(n):
        x = states[i]
        rate = np.empty(STATES)
        for _ in range(frames):
            _st_rates(x, steer_rate[i], accel[i], rate)
            for j in range(STATES):
                x[j] += dt * rate[j]
            x[2] = min(max(x[2], -STEER_LIMIT), STEER_LIMIT)


def start(n: int) -> np.ndarray:
    """N cars at 5 m/s going straight."""
    states = np.zeros((n, STATES))
    states[:, 3] = 5.0
    return states


def batch_rate(n: int, frames: int, repeats: int, dt: float) -> tuple[float, float]:
    """Car-steps per wall second and per CPU second of N cars stepping ``frames`` frames (medians)."""
    states = start(n)
    steer, accel = np.full(n, 0.05), np.full(n, 1.0)
    st_batch(states, steer, accel, dt, 1)
    walls, cpus = [], []
    for _ in range(repeats):
        states = start(n)
        a, b = time.perf_counter(), time.process_time()
        st_batch(states, steer, accel, dt, frames)
        walls.append(time.perf_counter() - a)
        cpus.append(time.process_time() - b)
    if not np.all(np.isfinite(states)):
        raise ArithmeticError("the peer's state became non-finite")
    return n * frames / float(np.median(walls)), n * frames / float(np.median(cpus))


def compile_cpu_s() -> float:
    """CPU seconds to get the peer compiled (from numba's cache after the first time)."""
    a = time.process_time()
    st_batch(start(1), np.zeros(1), np.zeros(1), 0.01, 1)
    return time.process_time() - a
