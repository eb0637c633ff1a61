"""The hunt: random adversarial input scripts run as one batch, judged by every invariant monitor, and
each monitor that fires shrunk to a minimal script that still breaks it.

Everything is deterministic for a seed: car i of preset P always gets the same script (its random
stream is seeded by (seed, P's position, i)), batches are judged in car order, and the shrinker
tries its candidates in a fixed order. Chunks of cars run through :func:`workbench.runs.cluster.mapper`,
so ``--workers``/``--scheduler`` change where they run, never what they find.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from physics import DEFAULT_DT, Preset
from physics.records import TELEMETRY
from workbench.names import load_named_preset
from workbench.runs import monitors
from workbench.runs.replay import run_batch
from workbench.scripts.format import Hold, MonitorCheck, Script
from workbench.scripts.program import compile_script
from workbench.streams import one_line

CHUNK = 200  # cars per batch: the step costs about the same for 1 car as for a few hundred
BATCH_BYTES = 512 * 2**20  # the most of a batch's telemetry held at once (a worker holds one batch at a time)
SHRINK_ROUNDS = 40


def _holds(n: int) -> str:
    """``n`` holds, in words ("1 hold", "3 holds")."""
    return f"{n} hold" + ("" if n == 1 else "s")


Segment = tuple[tuple[str, ...], int, int]
"""Keys held over frames [first, end)."""


# -- generating scripts ------------------------------------------------------------------------------

def _span(rng, fps: int, lo: float, hi: float) -> int:
    return max(1, int(rng.uniform(lo, hi) * fps))


def _steer(rng) -> str:
    return "left" if rng.random() < 0.5 else "right"


def _idle(rng, k, fps, manual, out):
    return k + _span(rng, fps, 0.1, 1.5)


def _drive(rng, k, fps, manual, out):
    n = _span(rng, fps, 0.5, 6.0)
    out.append((("throttle",), k, k + n))
    if rng.random() < 0.4:
        start = k + int(rng.integers(0, n))
        out.append(((_steer(rng),), start, start + _span(rng, fps, 0.2, 3.0)))
    return k + n


def _full_lock(rng, k, fps, manual, out):
    n = _span(rng, fps, 0.5, 4.0)
    keys = (_steer(rng),) + (("throttle",) if rng.random() < 0.6 else ())
    out.append((keys, k, k + n))
    return k + n


def _clutch_stabs(rng, k, fps, manual, out):
    for _ in range(int(rng.integers(1, 5))):
        n = _span(rng, fps, 0.2, 1.5)
        out.append((("throttle",), k, k + n))
        k += n
        stab = _span(rng, fps, 0.02, 0.3)
        out.append((("clutch",), k, k + stab))
        k += stab
    return k


def _reverse_at_lock(rng, k, fps, manual, out):
    if manual:  # 1st -> neutral -> reverse: two gear_down presses with the clutch pressed
        press = max(2, fps // 10)
        out.append((("clutch",), k, k + 6 * press))
        out.append((("gear_down",), k + press, k + 2 * press))
        out.append((("gear_down",), k + 3 * press, k + 4 * press))
        k += 6 * press
        n = _span(rng, fps, 1.0, 4.0)
        out.append((("throttle", _steer(rng)), k, k + n))
        k += n
        out.append((("clutch",), k, k + 6 * press))  # and back to 1st
        out.append((("gear_up",), k + press, k + 2 * press))
        out.append((("gear_up",), k + 3 * press, k + 4 * press))
        return k + 6 * press
    n = _span(rng, fps, 1.0, 4.0)  # direct drive: the brake key at rest reverses
    out.append((("brake", _steer(rng)), k, k + n))
    return k + n


def _handbrake_at_speed(rng, k, fps, manual, out):
    n = _span(rng, fps, 2.0, 6.0)
    out.append((("throttle",), k, k + n))
    k += n
    m = _span(rng, fps, 0.2, 2.0)
    out.append((("handbrake", _steer(rng)), k, k + m))
    return k + m


def _throttle_and_brake(rng, k, fps, manual, out):
    n = _span(rng, fps, 0.3, 3.0)
    out.append((("throttle", "brake"), k, k + n))
    return k + n


def _alternate(rng, k, fps, manual, out):
    pairs = [("left", "right"), ("throttle", "brake")] + ([("clutch", "throttle")] if manual else [])
    a, b = pairs[int(rng.integers(0, len(pairs)))]
    end = k + _span(rng, fps, 0.3, 2.0)
    period = int(rng.integers(1, 7))
    while k < end:
        out.append(((a,), k, k + period))
        out.append(((b,), k + period, k + 2 * period))
        k += 2 * period
    return k


def _shift(rng, k, fps, manual, out):
    if not manual:
        return _drive(rng, k, fps, manual, out)
    press = max(2, fps // 10)
    out.append((("clutch",), k, k + 4 * press))
    out.append(((("gear_up", "gear_down")[int(rng.integers(0, 2))],), k + press, k + 2 * press))
    return k + 4 * press


MOVES: tuple[tuple[Callable, float], ...] = (
    (_idle, 0.5), (_drive, 1.5), (_full_lock, 1.5), (_clutch_stabs, 1.0), (_reverse_at_lock, 1.0),
    (_handbrake_at_speed, 1.0), (_throttle_and_brake, 1.0), (_alternate, 1.0), (_shift, 0.7),
)
"""The adversarial moves a random script is made of, with their weights."""


def random_segments(rng: np.random.Generator, frames: int, fps: int, manual: bool) -> list[Segment]:
    """Held keys over ``frames`` frames: a random sequence of adversarial moves."""
    weights = np.array([w for _, w in MOVES])
    weights /= weights.sum()
    out: list[Segment] = []
    k = 0
    while k < frames:
        move = MOVES[int(rng.choice(len(MOVES), p=weights))][0]
        k = move(rng, k, fps, manual, out)
    return _clip(out, frames)


def _clip(segments: Sequence[Segment], frames: int) -> list[Segment]:
    return [(keys, a, min(b, frames)) for keys, a, b in segments if a < frames and min(b, frames) > a]


# -- scripts and batches -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One candidate: a preset and held keys over a number of frames (frames 0 .. frames - 1 are run)."""

    preset: str
    segments: tuple[Segment, ...]
    frames: int
    dt: float


def _seconds(k: int, dt: float) -> float:
    return round(k * dt, 6)  # frame_of() maps it back to k exactly


def to_script(case: Case, name: str, checks: Sequence[MonitorCheck] = (), description: str = "") -> Script:
    holds = tuple(Hold(keys, _seconds(a, case.dt), _seconds(b, case.dt)) for keys, a, b in case.segments)
    return Script(name=name, preset=case.preset, duration=_seconds(case.frames - 1, case.dt), dt=case.dt,
                  description=description, holds=holds, monitors=tuple(checks), source=f"<hunt {name}>")


def first_violations(cases: Sequence[Case], selection: Sequence[str] | None = None) -> list[dict[str, monitors.Violation]]:
    """Run ``cases`` (one preset and dt) as one batch; per case, each fired monitor's violation."""
    presets: dict[str, Preset] = {}
    programs = []
    for i, c in enumerate(cases):
        preset = presets.get(c.preset) or presets.setdefault(c.preset, load_named_preset(c.preset))
        programs.append(compile_script(to_script(c, f"case-{i}"), preset))
    results = run_batch(programs, channels=monitors.channels_read(selection))  # only what the monitors read
    frames = monitors.frames_of_batch(results[0].log, programs)
    out: list[dict[str, monitors.Violation]] = [{} for _ in cases]
    for v in monitors.run_monitors(frames, selection):
        out[v.car][v.monitor] = v
    return out


def random_case(preset: str, preset_index: int, seed: int, car: int, seconds: float, dt: float,
                manual: bool) -> Case:
    rng = np.random.default_rng([seed, preset_index, car])
    fps = max(1, round(1.0 / dt))
    frames = int(round(seconds / dt)) + 1
    return Case(preset, tuple(random_segments(rng, frames - 1, fps, manual)), frames, dt)


@dataclass(frozen=True)
class Chunk:
    """Cars ``first .. first + count - 1`` of one preset's hunt (what a worker runs)."""

    preset: str
    preset_index: int
    seed: int
    first: int
    count: int
    seconds: float
    dt: float
    selection: tuple[str, ...] | None = None


def run_chunk(chunk: Chunk) -> list[tuple[int, str, int]]:
    """(car, monitor, first frame) of every violation in one chunk of random cars."""
    manual = load_named_preset(chunk.preset).params.manual
    cases = [random_case(chunk.preset, chunk.preset_index, chunk.seed, chunk.first + i, chunk.seconds, chunk.dt,
                         manual) for i in range(chunk.count)]
    found = first_violations(cases, chunk.selection)
    return [(chunk.first + i, name, v.frame) for i, fired in enumerate(found) for name, v in sorted(fired.items())]


# -- shrinking ---------------------------------------------------------------------------------------

def _truncated(case: Case, frame: int) -> Case:
    """Only what precedes the violation at ``frame`` (the pair check needs frame + 1)."""
    frames = min(case.frames, frame + 2)
    return Case(case.preset, tuple(_clip(case.segments, frames - 1)), frames, case.dt)


def _merged(segments: Sequence[Segment]) -> tuple[Segment, ...]:
    """Holds of the same keys that touch or overlap joined into one (what the car sees is unchanged)."""
    out: list[Segment] = []
    for keys, a, b in sorted(segments, key=lambda s: (s[0], s[1], s[2])):
        if out and out[-1][0] == keys and a <= out[-1][2]:
            out[-1] = (keys, out[-1][1], max(b, out[-1][2]))
        else:
            out.append((keys, a, b))
    return tuple(sorted(out, key=lambda s: (s[1], s[2], s[0])))


def _candidates(case: Case) -> list[Case]:
    """Simpler variants of ``case``, the biggest simplifications first (a fixed order)."""
    segs = list(case.segments)
    out: list[tuple[Segment, ...]] = []
    merged = _merged(segs)
    if len(merged) < len(segs):
        out.append(merged)
    n = len(segs)
    size = max(n // 2, 1)
    while size >= 1 and n:  # drop chunks of holds, halves first (delta debugging)
        for start in range(0, n, size):
            out.append(tuple(segs[:start] + segs[start + size:]))
        if size == 1:
            break
        size //= 2
    for i, (keys, a, b) in enumerate(segs):  # fewer keys
        if len(keys) > 1:
            for key in keys:
                out.append(tuple(segs[:i] + [(tuple(k for k in keys if k != key), a, b)] + segs[i + 1:]))
    for i, (keys, a, b) in enumerate(segs):  # shorter holds: later start, earlier end
        if b - a > 1:
            mid = a + (b - a) // 2
            out.append(tuple(segs[:i] + [(keys, mid, b)] + segs[i + 1:]))
            out.append(tuple(segs[:i] + [(keys, a, mid)] + segs[i + 1:]))
    start = min((a for _, a, _ in segs), default=0)
    for shift in (start, start // 2):  # the idle lead-in removed
        if shift > 0:
            out.append(tuple((keys, a - shift, b - shift) for keys, a, b in segs))
    cases = []
    seen = {tuple(segs)}
    for segments in out:
        if segments not in seen:
            seen.add(segments)
            cases.append(Case(case.preset, segments, case.frames, case.dt))
    return cases


def shrink(case: Case, monitor: str, batch: int = 64) -> tuple[Case, monitors.Violation]:
    """The simplest variant of a failing ``case`` found that still breaks ``monitor``, and its violation.

    Greedy delta debugging: cut everything after the violation, then try the candidates (fewer
    holds, fewer keys, shorter holds, earlier) in batches and keep the first that still fails,
    until none does.
    """
    (fired,) = first_violations([case], [monitor])
    if monitor not in fired:
        raise ValueError(f"the case does not break {monitor}")
    violation = fired[monitor]
    case = _truncated(case, violation.frame)
    for _ in range(SHRINK_ROUNDS):
        candidates = _candidates(case)
        accepted = None
        for start in range(0, len(candidates), batch):
            group = candidates[start:start + batch]
            for candidate, result in zip(group, first_violations(group, [monitor]), strict=True):
                if monitor in result:
                    accepted = (candidate, result[monitor])
                    break
            if accepted:
                break
        if accepted is None:
            break
        case = _truncated(accepted[0], accepted[1].frame)
        violation = accepted[1]
    return case, violation


@dataclass(frozen=True)
class ShrinkTask:
    case: Case
    monitor: str


def run_shrink(task: ShrinkTask) -> tuple[Case, monitors.Violation]:
    return shrink(task.case, task.monitor)


# -- the hunt ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    """One monitor broken on one preset: how many cars broke it, and the minimal script."""

    preset: str
    monitor: str
    cars: int
    first_car: int
    original: Case
    minimal: Case
    violation: monitors.Violation

    def script(self, name: str, seed: int) -> Script:
        m = monitors.get(self.monitor)
        return to_script(self.minimal, name, [MonitorCheck(self.monitor)],
                         f"found by carbench hunt --seed {seed} (car {self.first_car}): {m.description}")

    def explanation(self, seed: int, cars: int | None = None, seconds: float | None = None) -> str:
        """The script's header: the hunt that found it (with the cars and seconds that decide its random scripts,
        when given), and where it fails."""
        m = monitors.get(self.monitor)
        v = self.violation
        size = ("" if cars is None else f" --cars {cars}") + ("" if seconds is None else f" --seconds {seconds:g}")
        # The preset as one line (a newline in a file's name as \\n): a comment line of the TOML file, which the name
        # broke into a line TOML refused, the whole hunt's scripts not written.
        return (f"# carbench hunt --preset {one_line(self.preset)}{size} --seed {seed}: car {self.first_car} broke "
                f"`{self.monitor}` "
                f"({m.description}).\n# Shrunk to {_holds(len(self.minimal.segments))}; it fails at frame {v.frame} "
                f"(t = {v.time:.4g} s): {v.values_text()}.\n")


def chunk_cars(seconds: float, dt: float = DEFAULT_DT, selection: Sequence[str] | None = None) -> int:
    """Cars per batch: CHUNK, or fewer where the telemetry the monitors read of that many cars would pass
    BATCH_BYTES (every channel while ``finite`` is among them: 200 cars of 600 s asked for 11 GB)."""
    read = monitors.channels_read(selection)
    channels = len(TELEMETRY.names) if read is None else len(read)
    per_car = (int(round(seconds / dt)) + 1) * channels * 8
    return max(1, min(CHUNK, BATCH_BYTES // per_car))


def chunks(presets: Sequence[str], cars: int, seconds: float, seed: int, dt: float = DEFAULT_DT,
           selection: Sequence[str] | None = None) -> list[Chunk]:
    """The batches of a hunt: each preset's cars, :func:`chunk_cars` at a time (a car's scripts and findings do
    not depend on the batch it runs in)."""
    out = []
    chosen = tuple(selection) if selection else None
    size = chunk_cars(seconds, dt, selection)
    for index, preset in enumerate(presets):
        for first in range(0, cars, size):
            out.append(Chunk(preset, index, seed, first, min(size, cars - first), seconds, dt, chosen))
    return out


def hunt(presets: Sequence[str], cars: int, seconds: float, seed: int, run=None,
         progress: Callable[[str, int, int], None] | None = None, dt: float = DEFAULT_DT,
         wave: int = 1, selection: Sequence[str] | None = None) -> list[Finding]:
    """Hunt every preset for the ``selection`` of monitors (all by default); ``run`` is a
    :data:`workbench.runs.cluster.Mapper` (in process by default), handed ``wave`` chunks at a time
    (the progress moves on after each wave)."""
    run = run or (lambda fn, items: [fn(item) for item in items])
    tick = progress or (lambda phase, done, total: None)
    work = chunks(presets, cars, seconds, seed, dt, selection)
    hits: list[tuple[int, str, int]] = []
    owners: list[Chunk] = []
    for start in range(0, len(work), wave):
        group = work[start:start + wave]
        for chunk, found in zip(group, run(run_chunk, group), strict=True):
            hits.extend(found)
            owners.extend([chunk] * len(found))
        tick("batch", min(start + wave, len(work)), len(work))
    # The first car (in car order) that broke each monitor on each preset is shrunk; the rest are counted.
    firsts: dict[tuple[str, str], tuple[Chunk, int]] = {}
    counts: dict[tuple[str, str], int] = {}
    for (car, name, _), chunk in zip(hits, owners, strict=True):
        key = (chunk.preset, name)
        counts[key] = counts.get(key, 0) + 1
        if key not in firsts or car < firsts[key][1]:
            firsts[key] = (chunk, car)
    keys = sorted(firsts, key=lambda k: (presets.index(k[0]), monitors.names().index(k[1])))
    tasks = []
    manual = {p: load_named_preset(p).params.manual for p in presets}
    for preset, name in keys:
        chunk, car = firsts[(preset, name)]
        case = random_case(preset, chunk.preset_index, seed, car, seconds, dt, manual[preset])
        tasks.append(ShrinkTask(case, name))
    findings = []
    for start in range(0, len(tasks), wave):
        group = tasks[start:start + wave]
        for task, (minimal, violation) in zip(group, run(run_shrink, group), strict=True):
            preset, name = task.case.preset, task.monitor
            findings.append(Finding(preset, name, counts[(preset, name)], firsts[(preset, name)][1], task.case,
                                    minimal, violation))
        tick("shrink", min(start + wave, len(tasks)), len(tasks))
    return findings


def _car_seconds(total: float) -> str:
    """The hunt's car-seconds, whole from 100 on ("12,000"), else to three figures: 0.005 s read "0"."""
    return f"{total:,.0f}" if total >= 100 else f"{total:.3g}"


def summary(findings: Sequence[Finding], presets: Sequence[str], cars: int, seconds: float,
            paths: Sequence[str]) -> str:
    lines = [f"hunt: {len(presets)} preset{'s' if len(presets) != 1 else ''} x {cars} car{'s' if cars != 1 else ''} x {seconds:g} s "
             f"= {_car_seconds(len(presets) * cars * seconds)} car-seconds"]
    if not findings:
        lines.append("no monitor fired")
        return "\n".join(lines)
    rows = [("preset", "monitor", "cars", "minimal", "fails at", "script")]
    for f, path in zip(findings, paths, strict=True):
        rows.append((f.preset, f.monitor, str(f.cars), f"{_holds(len(f.minimal.segments))}, {f.minimal.frames * f.minimal.dt:.3g} s",
                     f"{f.violation.time:.4g} s", path))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines.extend("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
    return "\n".join(lines)
