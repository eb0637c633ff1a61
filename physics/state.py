"""The simulated state of a car: the fields one step carries to the next.

:class:`State` is the schema: physics.records generates the numpy structured dtype the kernel
reads and writes from these fields (float -> f8, int -> i8, bool -> bool). A Simulation's
``state`` is a record array of N cars with these names (``sim.state.vx`` has shape (N,)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(slots=True)
class State:
    """What one step carries to the next, per car.

    The ``drv_`` fields are the memory of the closed-loop driver (physics.driver), carried with the
    car so that a restored state drives on exactly. Position and velocity are of the reference point: the centre of mass for the dynamic model,
    ``model.reference`` for the kinematic one. Velocities are in the car frame.
    """

    x: float  # [L] world position
    y: float  # [L]
    heading: float  # [rad] from +x, counter-clockwise
    vx: float  # [L/s] forward velocity in the car frame
    vy: float  # [L/s] leftward velocity in the car frame
    yaw_rate: float  # [rad/s] counter-clockwise
    steer: float  # [rad] bicycle front-wheel angle, positive left
    throttle: float  # [0..1] pedal
    brake: float  # [0..1] pedal
    clutch_pedal: float  # [0..1] pedal (1 = pressed, clutch open)
    gear: int  # -1 reverse, 0 neutral, 1.. forward
    rpm: float  # [rpm] engine speed
    auto_clutch: float  # [0..1] engagement the automatic clutch has reached
    accel: float  # [L/s^2] previous step's longitudinal acceleration (weight transfer)
    spinning: bool  # the driven wheels spin
    wheel_front: float  # [rad/s] front axle's wheel speed (combined model; rolling speed otherwise)
    wheel_rear: float  # [rad/s] rear axle's wheel speed
    stalled: bool  # the engine has stalled (combined model); the start key restarts it
    tcs: float  # [0..1] share of the engine's torque traction control cuts (combined model)
    backwards: bool  # the car travels backwards along itself: the sign of the speed channel (body.travels_backwards)
    accel_y: float  # [L/s^2] previous step's lateral acceleration (the four-wheel car's lateral load transfer)
    roll: float  # [rad] body roll, positive to the right (outwards in a left turn; four-wheel model)
    roll_rate: float  # [rad/s]
    yaw_target: float  # [rad/s] the yaw rate stability control holds the car to (aids.yaw_target)
    up_held: bool  # gear_up key held on the previous frame
    down_held: bool
    up_pending: bool  # a gear_up press waiting for the clutch
    down_pending: bool
    # The closed-loop driver's memory (physics.driver); zero for a car nobody drives.
    drv_row: int  # the path row the car was nearest on the previous frame (relative to the path's start)
    drv_speed_i: float  # integral of the relative speed error (or of the deceleration error)
    drv_lateral_i: float  # [1/L] integral term of the curvature asked for
    drv_phase: int  # shifting: 0 not, 1 pressing the clutch, 2 letting it out
    drv_gear: int  # the gear a shift goes to
    drv_after: bool  # the trigger (a time or a distance) has been reached
    drv_steer: float  # [0..1 of lock] the steering held once triggered
    drv_throttle: float  # [0..1] the throttle held once triggered


def initial_state(n: int, idle_rpm) -> np.ndarray:
    """A script's start: at rest at the origin heading along +x, engine idling, in 1st where there is a gearbox.

    (N,) records of physics.records.STATE.
    """
    from .records import STATE

    state = np.zeros(n, dtype=STATE)
    state["gear"] = 1  # 1st, or forward for a car without a gearbox
    state["rpm"] = np.broadcast_to(np.asarray(idle_rpm, dtype=float), (n,))
    return state
