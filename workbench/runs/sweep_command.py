"""``carbench sweep``: check every input and output, run the sweep (here or on Dask), print and write what it found."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from workbench.output.charts import Renderer
from workbench.output.files import OutputPathError, StagedOutputs, check_output_dir, check_output_file
from workbench.output.png_text import MANIFEST, charts_of_a_sweep, manifest_text, still_a_sweeps_chart
from workbench.output.sweep_report import as_json, charts, summary, write_charts, write_csv
from workbench.runs import cluster
from workbench.runs.sweep import DEFAULT_CHUNK, SweepError, SweepResult, plan_sweep, run_sweep
from workbench.scripts.format import ScriptError, load_script, resolve_script
from workbench.scripts.program import check_step, compile_script
from workbench.streams import say, stdout_refusal

CSV_NAME = "sweep.csv"
PROGRESS_AFTER = 1.0  # [s] the bar shows only for sweeps that take longer than this


@dataclass
class SweepArgs:
    script: str
    params: list[str]
    samples: int | None = None
    seed: int | None = None
    preset: str | None = None
    dt: float | None = None
    out: str = "."
    json: bool = False
    plot: bool = False
    workers: int | None = None
    scheduler: str | None = None
    chunk: int = DEFAULT_CHUNK


class BadInput(ValueError):
    """One line for stderr: the sweep cannot run as asked."""


class ProgressBar:
    """Cars done, car-steps/s and time left on one stderr line, shown once a sweep has run a second."""

    def __init__(self, stream: TextIO, after: float = PROGRESS_AFTER):
        self.stream = stream
        self.after = after
        self.shown = False

    def __call__(self, done: int, cars: int, steps: int, total: int, seconds: float) -> None:
        if seconds < self.after and not self.shown:
            return
        rate = steps / seconds if seconds > 0 else 0.0
        left = (total - steps) / rate if rate > 0 else 0.0
        filled = int(30 * steps / total) if total else 30
        done = max(done, int(cars * steps / total) if total else cars)  # cars' worth of steps, mid-chunk too
        self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done:,}/{cars:,} cars  "
                          f"{rate:,.0f} car-steps/s  {left:,.0f} s left ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def prepare(args: SweepArgs):
    """Every check that needs no run: the script, the axes and cars, the cluster options, the output paths."""
    if args.dt is not None:
        try:
            check_step(args.dt)
        except ValueError as exc:
            raise BadInput(f"--dt: {exc}") from None
    try:
        cluster.check_options(args.workers, args.scheduler)
    except cluster.ClusterError as exc:
        raise BadInput(str(exc)) from None
    try:
        script_file = resolve_script(args.script)
        # A sweep holds no telemetry (it reduces each block of frames as it goes): only the inputs count.
        program = compile_script(load_script(script_file), args.preset, args.dt, telemetry=False)
        plan = plan_sweep(program, args.params, args.samples, args.seed)
    except (ScriptError, SweepError) as exc:
        raise BadInput(str(exc)) from None
    if not 1 <= args.chunk <= 1_000_000:
        raise BadInput(f"--chunk {args.chunk}: must be between 1 and 1,000,000 cars")
    try:
        inputs = [script_file, *([program.preset_path] if program.preset_path is not None else [])]
        names = [CSV_NAME, MANIFEST] + ([name for name, _ in charts(_empty_result(plan))] if args.plot else [])
        folder = check_output_dir(args.out, "--out", inputs, writes=lambda name: name in names)
        from workbench.output.html_report import refuse_inside_presets

        refuse_inside_presets(folder, "--out")  # as a report's folder and the hunt's: not into carbench's own data
        if folder.is_dir():
            for name in names:
                check_output_file(folder / name, "--out", inputs)
    except OutputPathError as exc:
        raise BadInput(str(exc)) from None
    return plan, folder


def _empty_result(plan) -> SweepResult:
    """A result of the plan's shape (for the names of the charts it will draw)."""
    e, m = len(plan.program.script.expects), len(plan.program.script.measures)
    return SweepResult(plan, np.zeros((e, plan.cars)), np.zeros((e, plan.cars)), np.zeros((m, plan.cars)), 0, 0.0)


def run(args: SweepArgs, render: Renderer | None = None, stdout: TextIO | None = None,
        stderr: TextIO | None = None) -> int:
    """The command: 0 when the sweep ran (whatever passed), 2 for bad input (one line on stderr, nothing on stdout)."""
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    try:
        plan, folder = prepare(args)
    except BadInput as exc:
        say(exc, stderr)
        return 2
    bar = ProgressBar(stderr) if stderr.isatty() else None
    rounds = 1 if args.workers is None and args.scheduler is None else 2 * (args.workers or 4)
    chunk = args.chunk
    if rounds > 1 and args.chunk == DEFAULT_CHUNK:  # enough chunks to keep every worker busy
        chunk = max(1, min(chunk, -(-plan.cars // rounds)))
    from workbench.manoeuvres.catalogue import fitting
    from workbench.manoeuvres.sweep_kpis import run_test_sweep
    from workbench.scripts.format import ScriptError

    try:
        test = fitting(plan.program.script)  # a handling test's script: its KPIs are measures too (run here)
    except ScriptError as exc:
        say(exc, stderr)
        return 2
    if test is not None:
        from workbench.manoeuvres.manoeuvre_command import inapplicable
        from workbench.manoeuvres.runner import Car

        why = inapplicable(test, Car(plan.program.params, plan.program.preset))
        if why:  # a kinematic car's "understeer gradient" is no figure of its handling
            say(f"{args.script}: {why}", stderr)
            return 2
    refused = stdout_refusal(stdout)  # /dev/full or closed: said before the sweep runs, not after
    if refused:
        say(refused, stderr)
        return 2
    try:
        if test is not None:
            if rounds > 1:
                say(f"{args.script}: a handling test's sweep runs here, not on Dask (its KPIs are computed from the "
                    "runs)", stderr)
            # pieces of the runner's chunk unless --chunk asks for another size
            try:
                result = run_test_sweep(plan, *([args.chunk] if args.chunk != DEFAULT_CHUNK else []), progress=bar)
            except ScriptError as exc:  # a run the test asks for that cannot be (too long for memory at this dt)
                say(exc, stderr)
                return 2
        else:
            with cluster.mapper(args.workers, args.scheduler) as mapper:
                result = run_sweep(plan, mapper if rounds > 1 else None, chunk, bar, per_round=rounds)
    except cluster.ClusterError as exc:
        say(exc, stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a cluster's failure reaches us as whatever its workers raised
        if rounds == 1:
            raise
        option = f"--scheduler {args.scheduler}" if args.scheduler else f"--workers {args.workers}"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        say(f"{option}: the Dask cluster could not run the sweep ({type(exc).__name__}: {first}); "
            "the scheduler and every worker need this carbench installed", stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    assert result is not None
    from workbench.signals import deferring
    from workbench.streams import emit, quiet_stderr

    with StagedOutputs() as staged:
        try:
            stage = staged.folder(folder)
            written = [write_csv(result, stage / CSV_NAME)]
            if args.plot and render is not None:
                with quiet_stderr():  # libpng's own complaint would come before carbench's line
                    written += write_charts(result, stage, deferring(render))
            # An earlier sweep's charts left beside this sweep's CSV would read as its findings: those this one does
            # not draw again go once its outputs are in place. Only the charts a sweep listed as its own and left as
            # they were (png_text.charts_of_a_sweep), never a user's images or copies; asked again at the commit.
            drawn = [f.name for f in written[1:]]
            stale = sorted(charts_of_a_sweep(folder) - set(drawn)) if folder.is_dir() else []
            # the list for the next sweep into the folder: the charts drawn (none without --plot), and the earlier
            # ones to go, so that one that cannot be removed is asked about again
            (stage / MANIFEST).write_text(manifest_text(drawn + stale), encoding="utf-8")
        except OSError as exc:
            say(f"--out {folder}: cannot write: {staged.shown(exc.strerror or str(exc))}", stderr)
            return 2
        files = [folder / f.name for f in written]
        staged.replaces(folder, stale, still_a_sweeps_chart)
        if args.json:
            from workbench.names import printable_doc
            text = json.dumps(printable_doc({**as_json(result, files), "removes": [str(folder / name) for name in stale]}),
                              indent=2)
        else:
            text = summary(result) + "\n" + "wrote " + ", ".join(str(f) for f in files)
            if args.plot and render is not None and len(written) == 1:  # --plot, and it drew nothing: said, not silent
                text += ("\nno chart: no parameter moved any expectation's margin or KPI (a sensitivity chart of "
                         "nothing is not drawn)")
            if stale:
                text += ("\nremoves an earlier sweep's charts it does not draw again: "
                         + ", ".join(str(folder / name) for name in stale))
        emit(text, stdout)  # stdout first: a full or closed stdout fails the sweep before any file is in place
        try:
            staged.commit()
        except OSError as exc:
            say(f"--out {folder}: cannot move the outputs into place: {staged.move_problem(exc)}", stderr)
            return 2
        for line in staged.left_behind("an earlier sweep's chart"):  # the outputs are in place: only clutter
            say(f"--out {folder}: {line}", stderr)
    return 0


def timed(args: SweepArgs) -> tuple[SweepResult, float]:
    """Run a sweep in process and return it with its wall time (benchmarks)."""
    plan, _ = prepare(args)
    began = time.perf_counter()
    with cluster.mapper(args.workers, args.scheduler) as mapper:
        result = run_sweep(plan, mapper, args.chunk, per_round=2 * (args.workers or 1))
    return result, time.perf_counter() - began

