"""The combined model's body step: one linearly implicit solve of vx, vy and yaw rate with every tyre's slope."""

from __future__ import annotations

import numpy as np

from physics.body import planar_step


def _system(rng):
    m, inertia = rng.uniform(500, 3000), rng.uniform(500, 5000)
    lf, lr = rng.uniform(0.8, 1.8, size=2)
    steer = rng.uniform(-0.7, 0.7)
    c, s = np.cos(steer), np.sin(steer)
    slopes = rng.uniform(0.0, 2e5, size=4) * (rng.uniform(size=4) < 0.8)  # some tyres with no slope at all
    dirs = [np.array([c, s, lf * s]), np.array([1.0, 0.0, 0.0]), np.array([-s, c, lf * c]), np.array([0.0, 1.0, -lr])]
    stiffness = sum(k * np.outer(d, d) for k, d in zip(slopes, dirs, strict=True))
    return m, inertia, lf, lr, c, s, slopes, stiffness


def test_it_solves_the_symmetric_system_of_the_tyres_directions():
    rng = np.random.default_rng(7)
    for _ in range(200):
        m, inertia, lf, lr, c, s, (kxf, kxr, kyf, kyr), stiffness = _system(rng)
        dt = rng.choice([1 / 30, 1 / 120, 1 / 480])
        force = rng.normal(0, 5000, size=3)
        got = planar_step(m, inertia, *force, kxf, kxr, kyf, kyr, c, s, lf, lr, dt)
        want = np.linalg.solve(np.diag([m, m, inertia]) + dt * stiffness, dt * force)
        assert np.allclose(got, want, rtol=1e-9, atol=1e-12)


def test_tyres_acting_as_dampers_only_take_energy():
    """Forces F = -K v (each tyre opposing its own slip speed): the step never raises 1/2 v^T M v."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        m, inertia, lf, lr, c, s, (kxf, kxr, kyf, kyr), stiffness = _system(rng)
        dt = rng.choice([1 / 30, 1 / 120])
        v = rng.normal(0, 3, size=3)
        mass = np.diag([m, m, inertia])
        dv = np.array(planar_step(m, inertia, *(-stiffness @ v), kxf, kxr, kyf, kyr, c, s, lf, lr, dt))
        before, after = 0.5 * v @ mass @ v, 0.5 * (v + dv) @ mass @ (v + dv)
        assert after <= before * (1 + 1e-12) + 1e-12
