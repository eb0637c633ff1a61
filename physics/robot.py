"""Open-loop steering-robot inputs: the handwheel angle against time for the tests ISO defines open-loop.

Each profile gives the road-wheel angle [rad] at the times ``t`` [s] (a numpy array), from a
handwheel angle and the steering ratio (handwheel angle / road-wheel angle; 1 gives road-wheel
angles directly). Before ``start`` every profile is 0. A script's ``[robot]`` table picks one; the
script's compiler writes it as the steer override of every frame, so it reaches the car through
the steering rate and lock like any other steer.
"""

from __future__ import annotations

import math

import numpy as np

KINDS = ("step", "ramp", "sine", "sine_with_dwell", "sweep")


def step(t, start: float, amplitude: float, rate: float) -> np.ndarray:
    """ISO 7401 step input: from 0 at ``start`` to ``amplitude`` at ``rate`` [same unit per s], then held.

    ISO 7401 times the response from the instant the input reaches half its amplitude,
    ``start + 0.5 * |amplitude| / rate``.
    """
    tau = np.maximum(np.asarray(t, dtype=float) - start, 0.0)
    return np.sign(amplitude) * np.minimum(tau * rate, abs(amplitude))


def ramp(t, start: float, rate: float, limit: float) -> np.ndarray:
    """A steady ramp from ``start`` at ``rate`` until ``limit`` (the slowly increasing steer of UN R140 /
    FMVSS 126: 13.5 deg/s of handwheel), then held."""
    tau = np.maximum(np.asarray(t, dtype=float) - start, 0.0)
    return np.sign(rate) * np.minimum(tau * abs(rate), abs(limit))


def sine(t, start: float, amplitude: float, frequency: float, cycles: float) -> np.ndarray:
    """``cycles`` periods of a sine of ``frequency`` [Hz] from ``start``, then 0."""
    tau = np.asarray(t, dtype=float) - start
    on = (tau >= 0.0) & (tau < cycles / frequency)
    return np.where(on, amplitude * np.sin(2.0 * math.pi * frequency * tau), 0.0)


def sine_with_dwell(t, start: float, amplitude: float, frequency: float = 0.7, dwell: float = 0.5) -> np.ndarray:
    """UN R140 Annex 3 / FMVSS 126 S7.9: a sine of ``frequency`` [Hz] held for ``dwell`` [s] at its second
    peak, then completed. The steer ends at ``start + 1 / frequency + dwell`` (the completion of steer)."""
    tau = np.asarray(t, dtype=float) - start
    peak2 = 0.75 / frequency
    shifted = np.where(tau < peak2, tau, np.where(tau < peak2 + dwell, peak2, tau - dwell))
    on = (tau >= 0.0) & (tau < 1.0 / frequency + dwell)
    return np.where(on, amplitude * np.sin(2.0 * math.pi * frequency * shifted), 0.0)


def completion_of_steer(start: float, frequency: float = 0.7, dwell: float = 0.5) -> float:
    """When a sine with dwell ends (its 'completion of steer', COS) [s]."""
    return start + 1.0 / frequency + dwell


def sweep(t, start: float, amplitude: float, f_start: float, f_end: float, duration: float) -> np.ndarray:
    """ISO 7401 sine sweep: a sine whose frequency rises linearly from ``f_start`` to ``f_end`` [Hz] over
    ``duration`` [s] (phase 2 pi (f0 tau + (f1 - f0) tau^2 / 2T)), then 0."""
    tau = np.asarray(t, dtype=float) - start
    on = (tau >= 0.0) & (tau < duration)
    phase = 2.0 * math.pi * (f_start * tau + 0.5 * (f_end - f_start) * tau * tau / duration)
    return np.where(on, amplitude * np.sin(phase), 0.0)


def road_wheel(handwheel: np.ndarray, ratio: float) -> np.ndarray:
    """The road-wheel angle of a handwheel angle at a steering ratio (handwheel / road wheel)."""
    return np.asarray(handwheel, dtype=float) / ratio
