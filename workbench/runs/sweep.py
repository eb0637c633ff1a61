"""Parameter sweeps: one script over a grid or a Latin-hypercube sample of cars, as batches.

Each car is the script's car with the swept parameters replaced (for the whole run: a script's
``[[set]] params`` change the other parameters as written). Cars run in chunks of at most
``chunk`` cars; a chunk steps its cars together and reduces each frame into per-car verdicts and
measures (:class:`workbench.runs.measures.Tally`), so a sweep keeps O(cars) numbers, never telemetry.
A car's row depends only on its values: not on the chunk size, its position or where the chunk ran.

Sweep values are in the parameter's display unit (degrees for a lock), as the parameter panel shows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from physics import CarParams, Inputs, Kernel, Simulation
from physics.car import prepare_swept, with_values
from physics.params import DYNAMIC_RULES, FOUR_WHEEL_RULES
from physics.records import INPUTS
from workbench.runs.margins import columns_of
from workbench.runs.measures import Tally
from workbench.runs.replay import batch_key
from workbench.runs.sweep_axes import Axis, SweepError, display, latin_hypercube, parse_axis
from workbench.scripts.driving import drivers_of
from workbench.scripts.program import Program, frame_of
from workbench.scripts.surfaces import ground_for

MAX_CARS = 1_000_000
DEFAULT_CHUNK = 8192  # cars per batch: a few MB of state and one frame's telemetry


@dataclass(frozen=True)
class Plan:
    """What a sweep runs: the program, its axes, and one row of values per car (shown units)."""

    program: Program
    axes: tuple[Axis, ...]
    values: np.ndarray  # (cars, axes) in the axes' shown units
    grid: bool  # a full grid (rows in product order, first axis slowest) or a sample
    seed: int | None = None

    @property
    def cars(self) -> int:
        return len(self.values)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(a.values) for a in self.axes) if self.grid else (self.cars,)

    def si_values(self) -> np.ndarray:
        return self.values * np.array([a.to_si for a in self.axes])


def plan_sweep(program: Program, specs: Sequence[str], samples: int | None = None, seed: int | None = None) -> Plan:
    """Parse the axes and lay out every car; SweepError for bad specs, too many cars or a car that breaks its constraints."""
    if not specs:
        raise SweepError("give at least one --param PATH=SPEC")
    if samples is not None and not 1 <= samples <= MAX_CARS:
        raise SweepError(f"--samples {samples}: must be between 1 and {MAX_CARS:,}")
    if seed is not None and samples is None:
        raise SweepError("--seed: only with --samples")
    if seed is not None and not 0 <= seed < 2**32:
        raise SweepError(f"--seed {seed}: must be a whole number in 0 .. {2**32 - 1:,}")
    axes = tuple(parse_axis(s, program.params, sample=samples is not None) for s in specs)
    paths = [a.path for a in axes]
    repeated = next((p for p in paths if paths.count(p) > 1), None)
    if repeated:
        raise SweepError(f"--param {repeated}: given twice")
    if samples is None:
        count = math.prod(len(a.values) for a in axes)
        if count > MAX_CARS:
            raise SweepError(f"{' x '.join(str(len(a.values)) for a in axes)} = {count:,} cars; "
                             f"a sweep has at most {MAX_CARS:,}")
        mesh = np.meshgrid(*[a.values for a in axes], indexing="ij")
        values = np.column_stack([m.ravel() for m in mesh])
        plan = Plan(program, axes, values, True)
    else:
        u = latin_hypercube(samples, len(axes), 0 if seed is None else seed)
        columns = []
        for d, a in enumerate(axes):
            lo, hi = a.values
            column = np.exp(np.log(lo) + u[:, d] * (np.log(hi) - np.log(lo))) if a.log else lo + u[:, d] * (hi - lo)
            if program.params.info(a.path).kind is int:  # a whole-number parameter runs (and is listed) whole
                column = np.clip(np.round(column), math.ceil(lo), math.floor(hi))
            columns.append(column)
        plan = Plan(program, axes, np.column_stack(columns), False, 0 if seed is None else seed)
    check_cars(plan)
    return plan


def check_cars(plan: Plan) -> None:
    """Refuse the first car whose values break a group's constraints, naming its values: each car as it runs, from
    frame 0 and from each of the script's parameter changes, with the swept values a [[set]] has not yet taken back
    (:func:`set_part_way`; all of them were laid on every change, refusing a car the script's own values make whole
    and letting one through that they break)."""
    program = plan.program
    paths = [a.path for a in plan.axes]
    bases = [(0, program.params), *program.param_changes]
    live = [swept_at(program, paths, frame) for frame, _ in bases]
    si = plan.si_values()
    groups: dict[str, list[int]] = {}
    for d, a in enumerate(plan.axes):
        groups.setdefault(a.path.split(".")[0], []).append(d)
    for group, dims in groups.items():
        for (_, base), swept in zip(bases, live, strict=True):
            held = [d for d in dims if d in swept]
            if not held:
                continue
            unique, first = np.unique(si[:, held], axis=0, return_index=True)
            for row, i in zip(unique, first, strict=True):
                problem = _group_problem(base, group, [paths[d] for d in held], row)
                if problem:
                    raise SweepError(f"car {i + 1} ({_shown(plan, i)}): {group}.{problem}")
    for (_, base), swept in zip(bases, live, strict=True):
        _check_dynamic(plan, base, si, swept)
    _check_path(plan, si)


def _check_path(plan: Plan, si: np.ndarray) -> None:
    """Refuse the first car that cannot turn as tightly as its driver's path (a circle, a corner of points), as a
    script of that car is refused: a handling test's sweep compiled its cars one by one and the first such car ended
    the whole sweep, naming none."""
    from physics.path import CURVATURE
    from workbench.scripts.courses import course_of

    driver = plan.program.script.driver
    if driver is None or driver.path is None or driver.path.kind not in ("circle", "points"):
        return
    base = plan.program.params
    try:
        tightest = float(np.abs(course_of(driver.path, base).rows[:, CURVATURE]).max())
    except ValueError:
        return  # the script's own car: refused as the script was compiled
    paths = [a.path for a in plan.axes]

    def column(path: str) -> np.ndarray:
        return si[:, paths.index(path)] if path in paths else np.full(plan.cars, float(base.get(path)))

    turns = np.tan(column("steering.lock")) / column("body.wheelbase")  # [1/L] each car's curvature at full lock
    if (tightest > turns).any():
        i = int(np.argmax(tightest > turns))
        unit = base.model.unit
        raise SweepError(f"car {i + 1} ({_shown(plan, i)}): [driver.path] {driver.path.kind}: its tightest radius, "
                         f"{1.0 / tightest:.3g} {unit}, is tighter than the car turns at full lock "
                         f"({1.0 / turns[i]:.3g} {unit})")


RULE_BLOCK = 8192  # combinations checked at once (a (block, 65) array per angle)


def _shown(plan: Plan, i: int) -> str:
    """Car ``i``'s values as the axes show them."""
    return ", ".join(f"{a.path} = {v:g}{' ' + a.unit if a.unit else ''}"
                     for a, v in zip(plan.axes, plan.values[i], strict=True))


def _check_dynamic(plan: Plan, base: CarParams, si: np.ndarray, swept: Sequence[int]) -> None:
    """Refuse the first car that breaks a dynamic car's rules across groups (CarParams.check: a four-wheel car's front
    wheel past 80 deg, a dynamic index below the floor), each rule checked once per distinct combination of its
    values; the axes ``swept`` laid on ``base`` (those a [[set]] has not taken back)."""
    if base.kind != "dynamic" or not swept:
        return
    rules = FOUR_WHEEL_RULES if base.model.layout == "four_wheel" else DYNAMIC_RULES
    paths = [plan.axes[d].path for d in swept]
    si = si[:, list(swept)]
    bad = np.zeros(plan.cars, dtype=bool)
    for rule, judge in rules:
        dims = [paths.index(p) for p in rule if p in paths]
        if not dims:
            continue
        combos, where = np.unique(si[:, dims], axis=0, return_inverse=True)
        columns = [np.full(len(combos), float(base.get(p))) for p in rule]
        for k, d in enumerate(dims):
            columns[rule.index(paths[d])] = combos[:, k]
        refused = np.concatenate([judge(*(c[lo:lo + RULE_BLOCK] for c in columns))
                                  for lo in range(0, len(combos), RULE_BLOCK)])
        bad |= refused[np.ravel(where)]
    if bad.any():
        i = int(np.argmax(bad))
        problem = car_with(base, paths, si[i]).check()
        raise SweepError(f"car {i + 1} ({_shown(plan, i)}): {problem}")


def _group_problem(base: CarParams, group: str, paths: Sequence[str], values: np.ndarray) -> str | None:
    updated = getattr(with_values(base, paths, values), group)
    check = getattr(updated, "check", None)
    return check(base.model.unit) if check is not None else None


car_with = with_values
"""``base`` with the parameters at ``paths`` set to ``values`` (SI), already checked by :func:`check_cars`."""


@dataclass(frozen=True)
class Chunk:
    """Cars ``start .. start + len(values) - 1`` of a sweep: what a worker needs to run them."""

    program: Program
    paths: tuple[str, ...]
    values: np.ndarray  # (cars, axes) SI
    start: int


@dataclass
class ChunkResult:
    start: int
    expect_value: np.ndarray  # (E, cars)
    expect_margin: np.ndarray
    measure_value: np.ndarray  # (M, cars)
    car_steps: int


def _row_key(program: Program, k: int) -> bytes:
    return (program.keys[k].tobytes() + program.analog_on[k].tobytes() + program.analog_value[k].tobytes()
            + program.gear_on[k:k + 1].tobytes() + program.gear_value[k:k + 1].tobytes())


def _frame_inputs(program: Program, k: int, n: int) -> Inputs:
    """Frame ``k``'s inputs of ``program`` for ``n`` cars (a chunk's cars all drive the script)."""
    return Inputs.from_row(program.keys[k], program.analog_on[k], program.analog_value[k], program.gear_on[k],
                           program.gear_value[k], n)


TICK_FRAMES = 30  # frames per kernel call; an in-process chunk reports progress (and can be cancelled) as often


class Cancelled(Exception):
    """A sweep stopped on request between frames."""


def frames_needed(program: Program) -> int:
    """Frames a sweep steps: up to the last frame an expectation or measure looks at."""
    return min(program.frames, Tally(program, 0).last_frame + 1)


def set_part_way(program: Program, paths: Sequence[str]) -> dict[str, int]:
    """The first frame after 0 at which one of the script's [[set]] entries sets each of ``paths`` (those it sets
    part-way only). A swept car holds its swept value until then and the script's from then on, as a replay of the
    script's car with that value (``compare --vs-set``, the window's re-run of an edit) does: the sweep held the swept
    value over the [[set]] (a mass set to 3,000 kg at 1 s stayed at each car's own)."""
    out: dict[str, int] = {}
    for setting in program.script.sets:
        k = frame_of(setting.at, program.dt)
        if 0 < k < program.frames:
            for path in setting.params:
                if path in paths:
                    out[path] = min(out.get(path, k), k)
    return out


def swept_at(program: Program, paths: Sequence[str], frame: int) -> list[int]:
    """The indices of ``paths`` whose swept values hold from ``frame`` on: those no [[set]] of the script has taken
    to its own value by then (:func:`set_part_way`)."""
    set_from = set_part_way(program, paths)
    return [d for d, path in enumerate(paths) if set_from.get(path, program.frames) > frame]


def run_chunk(chunk: Chunk, tick: Callable[[int], None] | None = None, kernel: Kernel | None = None) -> ChunkResult:
    """Step the chunk's cars through the program as one batch, reducing every frame into a Tally.

    The kernel runs up to TICK_FRAMES frames per call (a block also ends where a [[set]] changes the
    parameters) and stores only the channels the expectations and measures read. ``tick(frames_done)``
    (in process only) is called after every block; it may raise Cancelled. ``kernel`` runs a variant of
    the model (physics.build_kernel); the shipped one by default.
    """
    program, n = chunk.program, len(chunk.values)
    cars = prepare_swept(program.params, chunk.paths, chunk.values)  # records by columns, no CarParams per car
    drivers, track = drivers_of([program.drive] * n)
    sim = Simulation(cars, dt=program.dt, kernel=kernel, drivers=drivers, track=track, **ground_for([program] * n))
    tally = Tally(program, n)
    changes = dict(program.param_changes)
    frames = min(program.frames, tally.last_frame + 1)  # nothing after the last frame looked at matters
    names = tally.channels or ("t",)
    index = {name: j for j, name in enumerate(names)}
    columns = columns_of(tally.expects, index)
    rows: dict[bytes, np.void] = {}  # every car gets the same inputs: one record per distinct frame row
    inputs = np.empty((min(TICK_FRAMES, max(frames, 1)), n), dtype=INPUTS)
    out = np.empty((inputs.shape[0], n, len(names)))
    held: list[bytes | None] = [None] * inputs.shape[0]  # the frame row each slot of ``inputs`` holds
    start = 0
    while start < frames:
        if start in changes:
            swept = swept_at(program, chunk.paths, start)
            sim.set_cars(prepare_swept(changes[start], [chunk.paths[d] for d in swept], chunk.values[:, swept]))
        end = min(start + TICK_FRAMES, frames)
        end = min([end] + [k for k in changes if start < k < end])  # a block stops where the parameters change
        for k in range(start, end):
            key = _row_key(program, k)
            if held[k - start] != key:  # the buffer is reused: a row is written only when it changes
                row = rows.get(key)
                if row is None:
                    row = rows[key] = _frame_inputs(program, k, 1)._record[0, 0]
                inputs[k - start] = row
                held[k - start] = key
        block = out[:end - start]
        # Each thread tallies the expectations of the cars it stepped as soon as it has (Tally.update_cars); the
        # measures, a pass or two over their columns, after.
        sim.run(inputs[:end - start], block, channels=names,
                then=lambda lo, hi, _a, _b, k0=start, block=block: tally.update_cars(k0, block, columns, lo, hi))
        tally.update_measures(start, block, index)
        if tick is not None:
            tick(end)
        start = end
    return ChunkResult(chunk.start, tally.expect_value, tally.expect_margin, tally.measure_value, frames * n)


@dataclass
class SweepResult:
    """Every car's row: its values, each expectation's decisive value, margin and pass, each measure's value."""

    plan: Plan
    expect_value: np.ndarray  # (E, cars), in the channel's unit
    expect_margin: np.ndarray  # (E, cars), signed: >= 0 passes
    measure_value: np.ndarray  # (M, cars); NaN where a crossing never happens
    car_steps: int
    seconds: float
    kpi_names: tuple[tuple[str, str], ...] = ()  # a manoeuvre's KPIs as measures: (label, unit) each
    kpi_value: np.ndarray | None = None  # (K, cars); NaN where a car did not reach it
    kpi_limits: tuple[str | None, ...] = ()  # each KPI's limit where its standard gives one ("<= 35 %"), else None
    kpi_passed: np.ndarray | None = None  # (K, cars): 1.0 within the limit, 0.0 past it, NaN with no verdict
    kpi_keys: tuple[str, ...] = ()  # each KPI's key (workbench.manoeuvres.kpi.Kpi.key); "conditions": met or not
    kpi_bounds: tuple[tuple[str, float] | None, ...] = ()  # each KPI's numeric limit ("<=", 35.0) where every judged
    # car was held to the same one (a chart's line), else None

    @property
    def expect_passed(self) -> np.ndarray:
        return self.expect_margin >= 0

    @property
    def all_passed(self) -> np.ndarray:
        """Every expectation met, and no KPI past its standard's limit (a handling test's sweep)."""
        passed = self.expect_passed.all(axis=0)
        if self.kpi_passed is not None and len(self.kpi_passed):
            passed = passed & ~(self.kpi_passed == 0.0).any(axis=0)
        return passed

    @property
    def judged_kpis(self) -> list[int]:
        """The KPIs with a limit, that a car passes or fails (none without verdicts)."""
        if self.kpi_passed is None:
            return []
        return [k for k, limit in enumerate(self.kpi_limits) if limit and k < len(self.kpi_passed)]

    @property
    def valued_kpis(self) -> list[int]:
        """The KPIs that are figures (all but the test's conditions, a verdict without a value)."""
        return [k for k in range(len(self.kpi_names)) if k >= len(self.kpi_keys) or self.kpi_keys[k] != "conditions"]

    @property
    def passing_what(self) -> str:
        """What a car that counts as passing passed, in words."""
        judged = self.judged_kpis
        if any(k in self.valued_kpis for k in judged):
            return "every expectation and KPI limit"
        return "every expectation and the test's conditions" if judged else "every expectation"


Progress = Callable[[int, int, int, int, float], None]
"""progress(cars_done, cars, car_steps_done, car_steps, seconds)"""


def chunks_of(plan: Plan, size: int) -> list[Chunk]:
    si = plan.si_values()
    paths = tuple(a.path for a in plan.axes)
    return [Chunk(plan.program, paths, si[i:i + size], i) for i in range(0, plan.cars, size)]


def run_sweep(plan: Plan, mapper=None, chunk: int = DEFAULT_CHUNK, progress: Progress | None = None,
              per_round: int = 1, cancelled: Callable[[], bool] | None = None,
              kernel: Kernel | None = None) -> SweepResult | None:
    """Run every car of ``plan`` in chunks of ``chunk`` cars, in process (``mapper`` None) or through ``mapper``.

    In process, ``progress`` is told every few frames and ``cancelled()`` is asked as often; through a
    mapper, ``per_round`` chunks go out at a time (a cluster's worker count) and both happen between
    rounds. A cancelled sweep returns None.
    """
    if not 1 <= chunk <= MAX_CARS:
        raise SweepError(f"chunk size {chunk}: must be between 1 and {MAX_CARS:,}")
    program = plan.program
    if any(batch_key(p, program.dt) != batch_key(program.params, program.dt) for _, p in program.param_changes):
        raise SweepError(f"{program.script.source}: its [[set]] params reshape the car mid-run; it cannot be swept")
    pieces = chunks_of(plan, chunk)
    results: list[ChunkResult] = []
    began = time.perf_counter()
    total = frames_needed(program) * plan.cars
    done = steps = 0

    def tell(cars_done: int, steps_done: int) -> None:
        if progress is not None:
            progress(cars_done, plan.cars, steps_done, total, time.perf_counter() - began)

    if mapper is None:
        for piece in pieces:
            n = len(piece.values)

            def tick(frames: int, n=n, done=done, steps=steps) -> None:
                if cancelled is not None and cancelled():
                    raise Cancelled
                tell(done, steps + frames * n)

            try:
                result = run_chunk(piece, tick, kernel)
            except Cancelled:
                return None
            results.append(result)
            done, steps = done + n, steps + result.car_steps
            tell(done, steps)
    else:
        for r in range(0, len(pieces), max(per_round, 1)):
            if cancelled is not None and cancelled():
                return None
            batch = pieces[r:r + max(per_round, 1)]
            for piece, result in zip(batch, mapper(run_chunk, batch), strict=True):
                results.append(result)
                done += len(piece.values)
                steps += result.car_steps
            tell(done, steps)
    results.sort(key=lambda c: c.start)
    return SweepResult(plan, np.concatenate([c.expect_value for c in results], axis=1),
                       np.concatenate([c.expect_margin for c in results], axis=1),
                       np.concatenate([c.measure_value for c in results], axis=1),
                       steps, time.perf_counter() - began)


def varied_axis(plan: Plan) -> int | None:
    """The one axis with several values (the others hold one), or a sample's only axis; else None."""
    if not plan.grid:
        return 0 if len(plan.axes) == 1 else None
    several = [d for d, a in enumerate(plan.axes) if len(a.values) > 1]
    return several[0] if len(several) == 1 else None


def flips(result: SweepResult) -> list[tuple[int, float, float, bool]]:
    """Where each expectation's verdict changes along the one varied axis, in increasing order of its
    value: (expectation, value before, value after, passes after). Empty with several varied axes."""
    plan = result.plan
    axis = varied_axis(plan)
    if axis is None:
        return []
    order = np.argsort(plan.values[:, axis], kind="stable")
    values = plan.values[order, axis]
    out = []
    for e, passed in enumerate(result.expect_passed[:, order]):
        for i in range(len(values) - 1):
            if passed[i] != passed[i + 1]:
                out.append((e, float(values[i]), float(values[i + 1]), bool(passed[i + 1])))
    return out


__all__ = ["Axis", "Chunk", "ChunkResult", "MAX_CARS", "Plan", "SweepError", "SweepResult", "car_with", "check_cars",
           "display", "flips", "latin_hypercube", "parse_axis", "plan_sweep", "run_chunk", "run_sweep",
           "varied_axis"]
