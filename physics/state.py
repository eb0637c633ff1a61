"""The simulated state of a batch of cars: named numpy arrays with a leading batch axis."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(slots=True)
class State:
    """What one step carries to the next, per car (arrays of shape (N,)).

    Position and velocity are of the reference point: the centre of mass for the dynamic model,
    ``model.reference`` for the kinematic one. Velocities are in the car frame.
    """

    x: np.ndarray  # [L] world position
    y: np.ndarray  # [L]
    heading: np.ndarray  # [rad] from +x, counter-clockwise
    vx: np.ndarray  # [L/s] forward velocity in the car frame
    vy: np.ndarray  # [L/s] leftward velocity in the car frame
    yaw_rate: np.ndarray  # [rad/s] counter-clockwise
    steer: np.ndarray  # [rad] bicycle front-wheel angle, positive left
    throttle: np.ndarray  # [0..1] pedal
    brake: np.ndarray  # [0..1] pedal
    clutch_pedal: np.ndarray  # [0..1] pedal (1 = pressed, clutch open)
    gear: np.ndarray  # int: -1 reverse, 0 neutral, 1.. forward
    rpm: np.ndarray  # [rpm] engine speed
    auto_clutch: np.ndarray  # [0..1] engagement the automatic clutch has reached
    accel: np.ndarray  # [L/s^2] previous step's longitudinal acceleration (weight transfer)
    spinning: np.ndarray  # bool: the driven wheels spin
    up_held: np.ndarray  # bool: gear_up key held on the previous frame
    down_held: np.ndarray  # bool
    up_pending: np.ndarray  # bool: a gear_up press waiting for the clutch
    down_pending: np.ndarray  # bool


def initial_state(n: int, idle_rpm: np.ndarray) -> State:
    """A script's start: at rest at the origin heading along +x, engine idling, in 1st where there is a gearbox."""
    zeros = np.zeros(n)
    no = np.zeros(n, dtype=bool)
    return State(
        x=zeros.copy(), y=zeros.copy(), heading=zeros.copy(),
        vx=zeros.copy(), vy=zeros.copy(), yaw_rate=zeros.copy(),
        steer=zeros.copy(), throttle=zeros.copy(), brake=zeros.copy(), clutch_pedal=zeros.copy(),
        gear=np.ones(n, dtype=np.int64),  # 1st, or forward for a car without a gearbox
        rpm=np.broadcast_to(np.asarray(idle_rpm, dtype=float), (n,)).copy(), auto_clutch=zeros.copy(),
        accel=zeros.copy(), spinning=no.copy(),
        up_held=no.copy(), down_held=no.copy(), up_pending=no.copy(), down_pending=no.copy(),
    )
