"""UN R140 / FMVSS 126 sine with dwell at 80 km/h, after the slowly increasing steer that sizes it.

FMVSS 126 S7.6 (UN R140 has the same test in its main text, as GTR No. 8 words it; its Annex 4 is the simulation
tool, not this test): the slowly increasing steer ramps the handwheel at
13.5 deg/s at 80 km/h; A is the handwheel angle at 0.3 g, from a least-squares line of handwheel
angle against lateral acceleration over SIS_FIT (NHTSA TP-126). S7.9: the sine with dwell, 0.7 Hz
with a 500 ms dwell at its second peak, runs at 1.5 A and upwards in steps of 0.5 A to 6.5 A or
270 deg, whichever is greater (the last run at 300 deg when 6.5 A would pass it), the throttle
released. carbench's choices where the standard asks more: the series steers left first only, where S7.6 and S7.9
run a counter-clockwise and a clockwise series (the model's cars are symmetric, so the mirror series is the same car
mirrored, and the same KPIs, unless a road's surfaces are not); A is from one slowly increasing steer, where S7.6
averages six; and the signals are the model's frames as they are, with none of S7.11's 12-pole phaseless Butterworth
filters (10 Hz on the steer, 6 Hz on the yaw rate and the lateral acceleration) nor its zeroing over the second
before the steer (the model's signals are noise-free and at rest there). Per run (S5.2):

- S5.2.1: the yaw rate 1.00 s after the completion of steer (COS) is at most 35% of the first yaw
  rate peak after the steer changes sign (psi_peak);
- S5.2.2: 1.75 s after COS, at most 20%;
- S5.2.3: 1.07 s after the beginning of steer (BOS), the centre of mass has moved at least 1.83 m
  sideways from its initial straight path (a car of up to 3,500 kg), on runs of 5 A and up.

BOS is the instant the handwheel angle first reaches 5 deg (S7.11.6) and COS the instant it returns to
zero at the end (S7.11.7), both interpolated between frames. The lateral displacement is what S7.11.9
computes: the lateral acceleration at the centre of mass (the body's axis, ``accel_lat``) integrated into a
lateral velocity zeroed at BOS, and that into a displacement zeroed at BOS.

The handwheel angle is the road-wheel angle times the robot's ratio.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from physics.robot import completion_of_steer
from workbench.manoeuvres.base import Manoeuvre, Runner
from workbench.manoeuvres.kpi import CONDITIONS, DEG, G, Kpi, RunData, at_time, line_fit
from workbench.scripts.format import Script, load_script, resolve_script

SIS_FIT = (0.1 * G, 0.375 * G)  # [m/s^2]
YAW_LIMITS = ((1.00, 0.35), (1.75, 0.20))  # (s after COS, largest share of psi_peak)
DISPLACEMENT_AT = 1.07  # [s] after BOS
DISPLACEMENT_MIN = 1.83  # [m] S5.2.3, a vehicle of 3,500 kg GVWR or less
DISPLACEMENT_MIN_HEAVY = 1.52  # [m] S5.2.3, a vehicle over 3,500 kg GVWR
HEAVY = 3500.0  # [kg]


def displacement_min(params) -> float:
    """S5.2.3's least lateral displacement for the car: 1.52 m over 3,500 kg GVWR, else 1.83 m. The model has no GVWR;
    its mass (body.mass, the car as tested) is at most the GVWR, so a car over 3,500 kg is over it, and one under is
    held to 1.83 m (the stricter figure, where its GVWR is not known)."""
    return DISPLACEMENT_MIN_HEAVY if params.body.mass > HEAVY else DISPLACEMENT_MIN


def clause(number: str) -> str:
    """A KPI's clause: FMVSS 126's section number (UN R140, which has the same test as GTR No. 8, numbers its
    paragraphs otherwise)."""
    return f"FMVSS 126 {number}; UN R140"


BOS_ANGLE = 5.0  # [deg of handwheel] FMVSS 126 S7.11.6: BOS is where the handwheel angle first reaches 5 deg


def beginning_of_steer(t, handwheel, start: float) -> float | None:
    """BOS [s] (FMVSS 126 S7.11.6): the first instant, from ``start`` on, the handwheel angle [deg] reaches 5 deg
    either way, interpolated between frames; None when it never does."""
    k0 = int(np.searchsorted(t, start))
    past = np.flatnonzero(np.abs(handwheel[k0:]) >= BOS_ANGLE)
    if not past.size:
        return None
    k = k0 + int(past[0])
    if k == 0:
        return float(t[0])
    a, b = abs(handwheel[k - 1]), abs(handwheel[k])
    return float(t[k - 1] + (t[k] - t[k - 1]) * (BOS_ANGLE - a) / (b - a)) if b > a else float(t[k])


def end_of_steer(t, handwheel, reversal: float, first_sign: float) -> float | None:
    """COS [s] (FMVSS 126 S7.11.7): the instant the handwheel angle, after its reversal, returns to zero at the end of
    the steer, interpolated between frames; None when it has not."""
    k0 = int(np.searchsorted(t, reversal))
    back = -first_sign * handwheel  # positive while the second half of the steer lasts
    held = np.flatnonzero(back[k0:] > 0.0)
    if not held.size:
        return None
    k1 = k0 + int(held[0])
    done = np.flatnonzero(back[k1:] <= 0.0)
    if not done.size:
        return None
    k = k1 + int(done[0])
    a, b = back[k - 1], back[k]
    if b == 0.0 and k >= 2 and back[k - 2] > a:
        # Held at zero from frame k (a robot's steer ends exactly there): the zero is where the approach of the
        # frames before reaches it, not frame k (up to a frame late).
        return float(min(t[k], t[k - 1] + (t[k - 1] - t[k - 2]) * a / (back[k - 2] - a)))
    return float(t[k - 1] + (t[k] - t[k - 1]) * a / (a - b)) if a > b else float(t[k])


def lateral_path(t, accel_lat, start: float, span: float) -> tuple[np.ndarray, np.ndarray] | None:
    """FMVSS 126 S7.11.9's lateral displacement [m] from ``start`` (BOS) over ``span`` seconds: the lateral
    acceleration at the centre of mass integrated into a lateral velocity zeroed at ``start``, and that into a
    displacement zeroed there. Each frame's ``accel_lat`` is the change the body's lateral velocity made over the
    frame, [t_k, t_k + dt), and the velocity after it carries the car over the frame, as the model moves it
    (x_k+1 = x_k + dt v_k+1; a part of a frame, at BOS and 1.07 s after it, likewise). Held over the frame with the
    velocity rising through it (the trapezoid), the sedan's 120 deg run read 3.1857 m at 1/120 s and 3.2028 at
    1/960 s, towards 3.205; so it reads 3.2051 and 3.2052.
    Returns the instants (``start``, the frames' starts between, ``start + span``) and the displacement at each; None
    when the run ends before."""
    end = start + span
    if len(t) < 2 or end > t[-1]:
        return None
    step = np.diff(t, append=2.0 * t[-1] - t[-2])
    lo, hi = np.maximum(t, start), np.minimum(t + step, end)
    inside = hi > lo
    a, h = accel_lat[inside], (hi - lo)[inside]
    velocity = np.cumsum(a * h)  # after each piece's change, which carries the car over the piece
    moved = np.cumsum(velocity * h)
    return np.concatenate([[start], hi[inside]]), np.concatenate([[0.0], moved])


def lateral_displacement(t, accel_lat, start: float, span: float) -> float | None:
    """:func:`lateral_path`'s displacement ``span`` seconds after ``start`` (S7.11.9); None when the run ends before."""
    path = lateral_path(t, accel_lat, start, span)
    return None if path is None else float(path[1][-1])


def swd_criteria(t, steer, yaw, accel_lat, start: float, frequency: float = 0.7,
                 dwell: float = 0.5, ratio: float = 1.0) -> dict[str, float | None]:
    """The S5.2 figures of one sine-with-dwell run: both yaw-rate ratios and the lateral displacement.

    ``steer`` is the road-wheel angle [rad]; the handwheel's is ``ratio`` times it. BOS and COS are read off that
    handwheel angle as S7.11.6 and S7.11.7 define them (the 5 deg crossing, the return to zero), on the steer as each
    frame holds it, where they were the robot's start and its planned end (the displacement was taken 11 ms early at
    100 deg, 24 ms at 50). The displacement is S7.11.9's double integral of ``accel_lat`` from BOS
    (:func:`lateral_displacement`): measured as the centre of mass's distance from the straight line it drove when
    the robot started, it read 3 to 5% less (2.996 m against 3.100 for the sedan at 5 A), the line and the body's
    axis parting as the car turns.
    """
    handwheel = np.degrees(steer) * ratio
    first_sign = np.sign(steer[np.argmax(np.abs(np.where(t < start + 0.5 / frequency, steer, 0.0)))])
    # The steer of row k is held over the frame [t_k, t_k + dt): BOS and COS are read on the held steer, the line
    # through the middles of its frames, as ISO 7401's half-steer instant is (transient.step_response). Read between
    # the samples at t_k, both came half a frame early: the sedan's lateral displacement at 5 A read 2.978 m at
    # dt = 1/120 s and 2.995 m at 1/1000 s.
    held = t + 0.5 * (float(t[1] - t[0]) if len(t) > 1 else 0.0)
    bos = beginning_of_steer(held, handwheel, start)
    cos_time = end_of_steer(held, handwheel, start + 0.5 / frequency, first_sign)
    if cos_time is None:  # not back to zero yet: the planned end, past which the ratios are not measured anyway
        cos_time = completion_of_steer(start, frequency, dwell)
    reversed_ = (t > start) & (np.sign(steer) == -first_sign) & (np.abs(steer) > 1e-9)
    peak = None
    if reversed_.any():
        k0 = int(np.flatnonzero(reversed_)[0])
        opposite = -first_sign * yaw[k0:]
        # The first peak of yaw rate in the direction of the second half of the steer.
        rising = np.flatnonzero((opposite[1:-1] >= opposite[:-2]) & (opposite[1:-1] > opposite[2:])
                                & (opposite[1:-1] > 0))
        if len(rising):
            peak = float(-first_sign * opposite[rising[0] + 1])
    out: dict[str, float | None] = {"psi_peak": peak, "bos": bos, "cos": cos_time}
    for after, _ in YAW_LIMITS:
        when = cos_time + after
        out[f"ratio_{after:.2f}"] = (None if peak is None or when > t[-1]
                                     else float(at_time(t, yaw, when) / peak))
    moved = None if bos is None else lateral_displacement(t, accel_lat, bos, DISPLACEMENT_AT)
    out["displacement"] = None if moved is None else abs(moved)
    return out


def run_criteria(run) -> dict[str, float | None]:
    """:func:`swd_criteria` of one run (a RunData of the sine with dwell's channels), its robot's profile as the
    script gives it."""
    robot = run.script.robot
    return swd_criteria(run.t, run["steer"], run["yaw_rate"], run["accel_lat"], robot.start, robot.get("frequency"),
                        robot.get("dwell"), robot.ratio)


class SineWithDwell(Manoeuvre):
    name = "r140_swd"
    title = "Sine with dwell (ESC) at 80 km/h"
    standard = "UN R140 / FMVSS 126"
    script = "r140_sine_dwell"
    sis_script = "r140_slowly_increasing"
    channels = ("steer", "yaw_rate", "accel_lat", "speed")

    def run(self, cars, runner: Runner, script: Script | None = None):
        return [summary(a, mine, reached) for a, reached, mine in self.series_runs(cars, runner, script)]

    def chart_jobs(self, cars, runner: Runner):
        """The runs a report draws, each car's twice: first the run of its worst yaw-rate ratio 1.00 s after COS, as
        the KPI picks it (the series run again as the test runs it), then the run of its least lateral displacement
        of those of 5 A and up, where S5.2.3 judges one, else its largest run (with no series, no A: the script's own
        amplitude, both times). The script's own 120 deg run was drawn, under KPIs of a series that may not even
        reach it."""
        script = self.base_script()
        ratios, displacements = [], []
        for car, (a, _, mine) in zip(cars, self.series_runs(cars, runner, script), strict=True):
            rows = criteria_rows(mine)
            worst = worst_run(rows, "ratio_1.00")
            ratios.append((script if worst is None else at_amplitude(script, worst[1]), car))
            least = least_displacement(rows, a)
            judged = least[1] if least is not None else (rows[-1][0] if rows else None)
            displacements.append((script if judged is None else at_amplitude(script, judged), car))
        return ratios + displacements

    def series_runs(self, cars, runner: Runner, script: Script | None = None):
        """Per car: A (None where the slowly increasing steer never reached 0.3 g), the largest lateral acceleration
        that steer reached, and the sine-with-dwell runs of the S7.9 series as (amplitude, run); all cars' runs of
        each stage as one batch."""
        sis = load_script(resolve_script(self.sis_script))
        script = script or self.base_script()
        ratio = script.robot.ratio
        sis_runs = runner([(sis, car) for car in cars])
        amplitudes = [sis_amplitude(run, ratio) for run in sis_runs]
        jobs, owners = [], []
        for i, (car, a) in enumerate(zip(cars, amplitudes, strict=True)):
            for amplitude in series(a, ratio, car.params.steering.lock):
                jobs.append((at_amplitude(script, amplitude), car))
                owners.append((i, amplitude))
        runs = runner(jobs) if jobs else []
        return [(a, sis_reach(sis_run), [(amp, run) for (owner, amp), run in zip(owners, runs, strict=True)
                                         if owner == i])
                for i, (a, sis_run) in enumerate(zip(amplitudes, sis_runs, strict=True))]

    def kpis(self, run: RunData) -> list[Kpi]:
        robot = run.script.robot
        c = run_criteria(run)
        return _run_kpis(c, robot.get("amplitude"), None, run.params)


def at_amplitude(script: Script, amplitude: float) -> Script:
    """The sine-with-dwell script at another amplitude [deg of handwheel]."""
    return replace(script, robot=replace(script.robot, values=dict(script.robot.values, amplitude=amplitude)))


def sis_amplitude(run: RunData, ratio: float) -> float | None:
    """A [deg of handwheel]: the handwheel angle at 0.3 g of a slowly increasing steer.

    Only the ramp up to the first frame past the fit's top counts: a car that later loses control passes
    back through the same lateral accelerations at much larger steer angles.
    """
    ay = np.abs(run["accel_lat"])
    handwheel = np.abs(run["steer"]) * DEG * ratio
    past = np.flatnonzero(ay > SIS_FIT[1])
    ramp = np.arange(len(ay)) < (past[0] if past.size else len(ay))
    pick = (ay >= SIS_FIT[0]) & (ay <= SIS_FIT[1]) & ramp
    if sis_reach(run) < 0.3 * G:  # never at 0.3 g: A would be the fit's line drawn past its data
        return None
    fit = line_fit(ay[pick], handwheel[pick])
    return None if fit is None else fit[0] * 0.3 * G + fit[1]


def sis_reach(run: RunData) -> float:
    """The largest lateral acceleration [m/s^2] of a slowly increasing steer's ramp: up to and with the first frame
    past the fit's top (a car that later loses control passes back through lower accelerations)."""
    ay = np.abs(run["accel_lat"])
    past = np.flatnonzero(ay > SIS_FIT[1])
    return float(ay[:past[0] + 1].max() if past.size else ay.max(initial=0.0))


def series(a: float | None, ratio: float, lock: float) -> list[float]:
    """The S7.9 amplitudes [deg of handwheel], within the car's lock."""
    if a is None or not a > 0:
        return []
    top = max(6.5 * a, 270.0) if 6.5 * a <= 300.0 else 300.0
    out, k = [], 3
    while k * 0.5 * a <= top + 1e-9:
        out.append(k * 0.5 * a)
        k += 1
    # S7.9.4: the final run is the greater of 6.5A and 270 deg (300 deg where 6.5A would pass it): where the steps of
    # 0.5A stop short of it (6.5A under 270, or over 300), it is run as well. It was run only at 300.
    # 1.5 A already past 300 deg (A over 200 deg): "if any 0.5A increment ... is greater than 300 deg, the final run
    # shall be 300 deg", and that is the one run; the series was empty and the car had no run at all.
    if not out or out[-1] < top - 1e-9:
        out.append(top)
    reach = math.degrees(lock) * ratio
    return [amp for amp in out if amp <= reach]


def _run_kpis(c, amplitude: float, a: float | None, params) -> list[Kpi]:
    out = []
    for after, limit in YAW_LIMITS:
        ratio = c[f"ratio_{after:.2f}"]
        out.append(Kpi(f"yaw_ratio_{after:.2f}", f"yaw-rate ratio {after:.2f} s after COS",
                       None if ratio is None else 100 * ratio, "%",
                       clause(f"S5.2.{1 if after < 1.5 else 2}"),
                       passed=None if ratio is None else bool(ratio <= limit), bound=("<=", 100 * limit)))
    # S5.2.3 holds runs of 5A and more to the displacement limit: with no A (one run judged alone, in the window's
    # KPI dock or a sweep) whether this run is one is not known, and it gets no verdict.
    needed = a is not None and amplitude >= 5 * a
    d = c["displacement"]
    least = displacement_min(params)
    out.append(Kpi("lateral_displacement", f"lateral displacement {DISPLACEMENT_AT:g} s after BOS", d, "m",
                   clause("S5.2.3"), passed=None if d is None or not needed else bool(d >= least),
                   note=f"at {amplitude:.4g} deg of handwheel", bound=(">=", least) if needed else None))
    return out


def criteria_rows(runs) -> list[tuple[float, dict]]:
    """(amplitude, its S5.2 figures: swd_criteria) of each (amplitude, run) of a series."""
    return [(amplitude, run_criteria(run)) for amplitude, run in runs]


def worst_run(rows: list[tuple[float, dict]], key: str) -> tuple[float, float] | None:
    """The largest value of figure ``key`` over a series' rows and its amplitude (the larger amplitude of equal
    values); None where no run has it."""
    return max(((c[key], amp) for amp, c in rows if c[key] is not None), default=None)


def least_displacement(rows: list[tuple[float, dict]], a: float | None) -> tuple[float, float] | None:
    """The least lateral displacement of a series' runs of 5 A and up (those S5.2.3 judges) and its amplitude; None
    where no such run has one."""
    return min(((c["displacement"], amp) for amp, c in rows if a is not None and amp >= 5 * a - 1e-9
                and c["displacement"] is not None), default=None)


def summary(a: float | None, runs, reached: float | None = None) -> list[Kpi]:
    """The test over the series: A, the worst of each criterion, and the runs it took. ``reached`` [m/s^2]: the
    largest lateral acceleration of the slowly increasing steer. With no A (the car never reached 0.3 g there) the
    series is not run, and the test fails its conditions: a car that cannot corner at 0.3 g passed with no run."""
    if a is None:
        seen = "" if reached is None else f" (at most {reached / G:.3g} g)"
        return [Kpi("amplitude_03g", "handwheel angle at 0.3 g (A)", None, "deg", clause("S7.6"),
                    note=f"the slowly increasing steer never reached 0.3 g{seen}"),
                Kpi(CONDITIONS, "the test's conditions", None, "", clause("S7.6"), "met", False,
                    note=f"A is the handwheel angle at 0.3 g, which the car never reached{seen}: no sine with dwell")]
    kpis = [Kpi("amplitude_03g", "handwheel angle at 0.3 g (A)", a, "deg", clause("S7.6"))]
    if not runs:
        return kpis + [Kpi("runs", "sine-with-dwell runs", 0.0, "", clause("S7.9"), note="no amplitude within lock")]
    rows = criteria_rows(runs)
    for after, limit in YAW_LIMITS:
        worst = worst_run(rows, f"ratio_{after:.2f}")
        kpis.append(Kpi(f"yaw_ratio_{after:.2f}", f"worst yaw-rate ratio {after:.2f} s after COS",
                        None if worst is None else 100 * worst[0], "%", clause(f"S5.2.{1 if after < 1.5 else 2}"),
                        passed=None if worst is None else bool(worst[0] <= limit),
                        note="" if worst is None else f"at {worst[1]:.4g} deg", bound=("<=", 100 * limit)))
    least = least_displacement(rows, a)
    limit = displacement_min(runs[0][1].params)
    if least is not None:
        note = f"at {least[1]:.4g} deg"
    elif rows[-1][0] < 5 * a - 1e-9:  # no run of 5 A or more: S5.2.3 judges none
        note = (f"not judged: no run reached 5 A ({5 * a:.4g} deg); the series ends at {rows[-1][0]:.4g} deg "
                + ("(S7.9.4's 300 deg)" if rows[-1][0] >= 300.0 - 1e-9 else "(the car's lock)"))
    else:
        note = "not judged: no run of 5 A or more has a displacement at 1.07 s after BOS"
    kpis.append(Kpi("lateral_displacement", f"least lateral displacement {DISPLACEMENT_AT:g} s after BOS (5 A and up)",
                    None if least is None else least[0], "m", clause("S5.2.3"),
                    passed=None if least is None else bool(least[0] >= limit), note=note, bound=(">=", limit)))
    kpis.append(Kpi("runs", "sine-with-dwell runs", float(len(rows)), "", clause("S7.9"),
                    note=f"{rows[0][0]:.4g} .. {rows[-1][0]:.4g} deg of handwheel"))
    return kpis
