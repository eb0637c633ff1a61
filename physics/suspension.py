"""The four-wheel car's suspension: the body's roll, the lateral load transfer it shares between the axles,
and each wheel's load.

Lateral load transfer of an axle (Milliken and Milliken, Race Car Vehicle Dynamics, 1995, on wheel loads): a
geometric part through its roll centre, m a_y (its share of the weight) h_rc / t, at once, and an
elastic part through its springs, anti-roll bar and dampers, (K_axle phi + C_axle phi') / t, which
follows the roll angle phi. The body rolls under the moment m a_y h' about the roll axis, h' the
centre of mass's height above it, and under its weight as the centre of mass moves sideways with the roll,
m g h' phi (small angles): I_x phi'' = m a_y h' - (K - m g h') phi - C phi' (Gillespie, Fundamentals of Vehicle
Dynamics, 1992, ch. 8: the roll gradient m g h' / (K - m g h') per g of a_y). In a steady turn the two parts add up
to (m a_y h + m g h' phi) / t over both axles, split front and rear by the roll stiffnesses; the second term is the
sideways shift's own load transfer.

Before carbench 0.3.24 the sideways shift was left out: the sedan rolled 2.67 deg per g where this gives 2.80.
"""

from __future__ import annotations

from .jit import scalar


@scalar
def roll_step(roll, rate, moment, stiffness, damping, inertia, dt):
    """Roll angle [rad] and rate [rad/s] after dt under ``moment`` [N m], implicit Euler (stable at any dt)."""
    new_rate = (rate + dt * (moment - stiffness * roll) / inertia) / (1.0 + dt * damping / inertia
                                                                     + dt * dt * stiffness / inertia)
    return roll + dt * new_rate, new_rate


@scalar
def lateral_transfer(p, accel_y, roll, rate):
    """The load moved to the right wheels of the front and the rear axle [N] (positive in a left turn)."""
    mass, track, wheelbase = p.body_mass, p.body_track, p.body_wheelbase
    damping_f = p.suspension_roll_damping * p.suspension_damping_front_share
    damping_r = p.suspension_roll_damping - damping_f
    front = (mass * accel_y * p.body_lr / wheelbase * p.suspension_roll_centre_front
             + p.roll_stiffness_front * roll + damping_f * rate) / track
    rear = (mass * accel_y * p.lf / wheelbase * p.suspension_roll_centre_rear
            + p.roll_stiffness_rear * roll + damping_r * rate) / track
    return front, rear


@scalar
def roll_stiffness(p):
    """The stiffness [N m/rad] the body's roll meets: the axles' springs and anti-roll bars less what the centre of
    mass's sideways shift gives back, K_front + K_rear - m g h' (the preset check keeps it above zero:
    physics.params.CarParams.roll_at_1g)."""
    return (p.roll_stiffness_front + p.roll_stiffness_rear
            - p.body_mass * p.model_gravity * (p.body_cg_height - p.roll_axis_height))


@scalar
def roll_moment(p, accel_y):
    """The moment [N m] that rolls the body about its roll axis: m a_y h'."""
    return p.body_mass * accel_y * (p.body_cg_height - p.roll_axis_height)


@scalar
def split(total, shift):
    """An axle's load shared by its left and right wheel [N], ``shift`` moved to the right: neither below
    zero (a wheel unloaded past zero lifts and the other carries the axle), nor the axle below zero."""
    total = max(total, 0.0)
    right = min(max(0.5 * total + shift, 0.0), total)
    return total - right, right


@scalar
def wheel_loads(p, accel_x, transfer_f, transfer_r):
    """The loads on fl, fr, rl and rr [N]: static, moved rearwards by m a_x h / L, and across by the transfers."""
    moved = p.body_mass * accel_x * p.body_cg_height / p.body_wheelbase
    front = 2.0 * p.static_front - moved
    rear = 2.0 * p.static_rear + moved
    if front < 0.0:  # a wheelie (or a stoppie): the other axle carries the car
        rear, front = rear + front, 0.0
    if rear < 0.0:
        front, rear = front + rear, 0.0
    fl, fr = split(front, transfer_f)
    rl, rr = split(rear, transfer_r)
    return fl, fr, rl, rr
