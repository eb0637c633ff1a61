"""Acceleration (0-100, 0-200 km/h with shifting, 80-120 km/h in gear) and the coast-down road load.

Acceleration: full throttle from rest, the driver shifting by its rpm rule; the time from the first
frame to each speed (linear between frames). In gear: the driver holds 80 km/h, the gear is set
(4th, or the top gear of a shorter box) and the throttle goes to full at FULL_AT; the time from
then to 120 km/h.

Coast-down: from 130 km/h in neutral, the car rolls out. The road load F(v) = -m_eff dv/dt is
fitted by least squares with F = A + B v + C v^2 over 20 km/h .. 95% of the start speed (the
road-load equation of SAE J2263 and UN R154 / WLTP Annex 4), dv/dt from the speed by central
differences over 1 s. m_eff is the mass plus the wheels' rotational inertia over the radius
squared (the combined model's wheels turn with the car; the other models have no wheel inertia).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from workbench.manoeuvres.base import Manoeuvre
from workbench.manoeuvres.kpi import KMH, Kpi, RunData, crossing
from workbench.scripts.format import Script

CLAUSE = "0-100/0-200 km/h"
GEAR = 4
COAST_CLAUSE = "SAE J2263 / UN R154 Annex 4 road load"


class Acceleration(Manoeuvre):
    name = "acceleration"
    title = "Acceleration 0-100 and 0-200 km/h"
    standard = "full throttle, shifting"
    script = "accel_0_200"
    channels = ("speed",)
    conditions = 0  # a standing start: its script's one expectation is the sedan's own figure, not a condition
    lateral = False

    def kpis(self, run: RunData) -> list[Kpi]:
        kmh = run["speed"] * KMH
        out = []
        for target in (100.0, 200.0):
            when = crossing(run.t, kmh, target)
            out.append(Kpi(f"time_0_{target:.0f}", f"0-{target:.0f} km/h", when, "s", CLAUSE,
                           note="" if when is not None else f"top speed {kmh.max():.4g} km/h in the run"))
        return out


class InGear(Manoeuvre):
    name = "elasticity"
    title = "Acceleration 80-120 km/h in gear"
    standard = "full throttle, one gear"
    script = "accel_80_120"
    channels = ("speed", "throttle", "gear")
    lateral = False

    def run(self, cars, runner, script: Script | None = None):
        script = script or self.base_script()
        jobs = [(self.script_for(script, car), car) for car in cars]
        return [self.kpis(run) for run in runner(jobs)]

    def script_for(self, script: Script, car) -> Script:
        return for_car(script, car.params)

    def kpis(self, run: RunData) -> list[Kpi]:
        full = next((s.at for s in run.script.sets if s.analog.get("throttle_pedal") == 1.0), None)
        kmh = run["speed"] * KMH
        # A car with no gearbox has its one direct drive: no gear to name (its gear channel reads 1).
        geared = run.params.gearbox is not None
        if full is None:
            return [Kpi("time_80_120", "80-120 km/h in gear", None, "s", "in gear" if geared else "direct drive")]
        held = f"in gear {int(round(float(run['gear'][-1])))}" if geared else "direct drive"
        when = crossing(run.t, kmh, 120.0, after=full)
        start = float(np.interp(full, run.t, kmh))
        after = kmh[run.t >= full]
        if not after.size:  # start is then the run's last speed
            when, reached = None, "; the run ends before full throttle"
        elif start >= 120.0:  # crossing() gave the full throttle's instant itself: 0 s
            when, reached = None, "; past 120 km/h at full throttle"
        elif when is not None:
            reached = ""
        else:
            reached = f"; top speed {after.max():.4g} km/h in the run, not 120"
        return [Kpi("time_80_120", "80-120 km/h in gear", None if when is None else when - full, "s", held,
                    note=f"from {start:.4g} km/h{reached}")]


def for_car(script: Script, params) -> Script:
    """The in-gear script for a car: the gear set only where there is a gearbox (4th or its top)."""
    sets = []
    for s in script.sets:
        if s.gear is not None:
            if params.gearbox is None:
                s = replace(s, gear=None)
                if not (s.analog or s.release or s.params):
                    continue
            else:
                s = replace(s, gear=min(GEAR, len(params.gearbox.ratios)))
        sets.append(s)
    return replace(script, sets=tuple(sets))


class CoastDown(Manoeuvre):
    name = "coastdown"
    title = "Coast-down road load A + B v + C v^2"
    standard = COAST_CLAUSE
    script = "coastdown_fit"
    channels = ("speed",)
    lateral = False

    def run(self, cars, runner, script: Script | None = None):
        script = script or self.base_script()
        jobs = [(self.script_for(script, car), car) for car in cars]
        return [self.kpis(run) for run in runner(jobs)]

    def script_for(self, script: Script, car) -> Script:
        return for_car_neutral(script, car.params)

    def kpis(self, run: RunData) -> list[Kpi]:
        v = run["speed"]
        m_eff, pick, accel = road_load_frames(run)
        if pick.sum() < 10:  # a car with (almost) no road load coasts on at its speed: nothing to fit
            start = run.script.driver.until
            top = float(np.interp(start, run.t, v))  # as road_load_frames takes it
            after = v[run.t >= start]
            low = float(after.min()) if len(after) else top
            return [Kpi("road_load_a", "road load A", None, "N", COAST_CLAUSE,
                        note=f"not fitted: {int(pick.sum())} frames between 20 km/h and 95% of the speed at the "
                             f"release ({top * KMH:.4g} km/h); the car coasted down to {low * KMH:.4g} km/h")]
        c, b, a = np.polyfit(v[pick], -m_eff * accel[pick], 2)
        return [Kpi("road_load_a", "road load A", float(a), "N", COAST_CLAUSE),
                Kpi("road_load_b", "road load B", float(b), "N s/m", COAST_CLAUSE),
                Kpi("road_load_c", "road load C", float(c), "N s^2/m^2", COAST_CLAUSE,
                    note=f"m_eff {m_eff:.5g} kg, {v[pick].min() * KMH:.3g}..{v[pick].max() * KMH:.3g} km/h")]


def road_load_frames(run: RunData) -> tuple[float, np.ndarray, np.ndarray]:
    """What the road-load fit is made of: the effective mass [kg] (the wheels' rotating inertia added where they spin
    on their own), the frames fitted (a mask: from 1 s after the throttle is released, between 20 km/h and 95% of the
    speed then, where the speed's central difference over 1 s is defined) and the acceleration [m/s^2] there."""
    t, v = run.t, run["speed"]
    start = run.script.driver.until
    p = run.params
    m_eff = p.body.mass
    if p.model.traction == "combined" and p.kind == "dynamic":
        m_eff += (p.body.wheel_inertia_front + p.body.wheel_inertia_rear) / p.body.wheel_radius ** 2
    half = max(int(round(0.5 / run.dt)), 1)
    accel = np.full_like(v, np.nan)
    accel[half:-half] = (v[2 * half:] - v[:-2 * half]) / (t[2 * half:] - t[:-2 * half])
    top = float(np.interp(start, t, v))
    pick = (t > start + 1.0) & (v >= 20.0 / KMH) & (v <= 0.95 * top) & np.isfinite(accel)
    return m_eff, pick, accel


def for_car_neutral(script: Script, params) -> Script:
    """The coast-down script for a car: neutral where there is a gearbox, else only the throttle released."""
    if params.gearbox is not None:
        return script
    sets = (replace(s, gear=None) for s in script.sets)
    return replace(script, sets=tuple(s for s in sets if s.analog or s.release or s.params))
