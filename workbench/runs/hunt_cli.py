"""``carbench hunt``: options checked, the hunt run (in process or on Dask), minimal scripts written."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

from physics import PresetError, preset_names
from physics.presets import cars_dir
from workbench.names import NameRuleError, load_named_preset
from workbench.output.files import OutputPathError, StagedOutputs, atomic_write_text, check_output_dir
from workbench.runs import hunt as hunting
from workbench.runs.cluster import ClusterError, check_options, mapper
from workbench.scripts.format import ScriptError, first_repeat
from workbench.scripts.limits import MAX_HUNT_CARS, MAX_HUNT_SECONDS
from workbench.signals import deferring
from workbench.streams import check_stdout, emit, quiet_stderr, say

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _bad(message: str) -> int:
    say(message)
    return EXIT_BAD_INPUT


class _Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self):
        self.on = sys.stderr.isatty()

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.on:
            return
        width = 30
        full = int(width * done / max(total, 1))
        sys.stderr.write(f"\rhunt: {phase:6s} [{'#' * full}{'.' * (width - full)}] {done}/{total}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


def _free_path(folder: Path, monitor: str, taken: set[Path]) -> Path:
    n = 1
    while os.path.lexists(folder / f"{monitor}-{n}.toml") or folder / f"{monitor}-{n}.toml" in taken:
        n += 1
    return folder / f"{monitor}-{n}.toml"


def write_report(paths: list[Path], folder: Path, render, shown_as: list[Path] | None = None) -> Path:
    """The HTML report of the minimal scripts, each replayed on its own with its monitor.

    ``shown_as``: the paths the report names the scripts by (where they land once staged files move in).
    """
    from workbench.output.html_report import write_report as write_html
    from workbench.runs.monitors import check_results
    from workbench.runs.replay import replay
    from workbench.scripts.format import parse_script
    from workbench.scripts.limits import read_limited_text
    from workbench.scripts.program import compile_script

    names = shown_as if shown_as is not None else paths
    programs = []
    for p, name in zip(paths, names, strict=True):
        script = parse_script(read_limited_text(p), str(name))
        # A preset file is named relative to where the script lands (--out), which may not exist yet, and the
        # staged copy may sit a folder deeper: the path is joined to the landing folder lexically.
        preset = script.preset
        if (preset.endswith(".toml") or "/" in preset) and not os.path.isabs(preset):
            preset = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(name)), preset))
        programs.append(compile_script(script, preset))
    results = replay(programs)
    return write_html(results, folder, render, check_results(results), title="carbench hunt: minimal scripts")


def run(args, renderer=lambda: None, no_renderer=lambda: "it needs PySide6 and pyqtgraph") -> int:
    """``renderer()`` returns the chart renderer for the report, or None where Qt is missing or cannot load, and
    ``no_renderer()`` then says why (the end of the line that says there is no report)."""
    presets = args.hunt_presets or preset_names()
    if not 1 <= args.cars <= MAX_HUNT_CARS:
        return _bad(f"--cars {args.cars}: must be between 1 and {MAX_HUNT_CARS}")
    if not 0 < args.seconds <= MAX_HUNT_SECONDS:
        return _bad(f"--seconds {args.seconds:g}: must be in (0, {MAX_HUNT_SECONDS:g}] s")
    from physics import DEFAULT_DT

    if round(args.seconds / DEFAULT_DT) < 1:  # one frame, nothing driven and no monitor with a step to judge
        return _bad(f"--seconds {args.seconds:g}: shorter than one frame (the hunt's dt is {DEFAULT_DT:.6g} s)")
    if not 0 <= args.seed < 2**32:
        return _bad(f"--seed {args.seed}: must be a whole number in 0 .. {2**32 - 1:,}")
    resolved = []
    for preset in presets:
        try:
            path = load_named_preset(preset).path
            # a shipped preset keeps its name (the minimal scripts say preset = "sedan")
            resolved.append(path.stem if path is not None and path.parent == cars_dir() else preset)
        except (PresetError, NameRuleError) as exc:
            return _bad(f"--preset: {exc}")
    presets = resolved
    repeat = first_repeat(presets)
    if repeat is not None:
        return _bad(f"--preset: {presets[repeat[1] - 1]} is named twice")
    try:
        files = [load_named_preset(p).path for p in presets]
        out = check_output_dir(args.out, "--out", [f for f in files if f is not None],
                               # its scripts go to free names (_free_path), so only report/ can meet an input
                               writes=lambda name: name == "report", folders=["report"])
        from workbench.output.html_report import check_report_dir, refuse_inside_presets

        refuse_inside_presets(out / "report", "--out")  # a report is written when the hunt finds anything
        if (out / "report").is_dir():
            check_report_dir(out / "report", "--out", [f for f in files if f is not None])
        check_options(args.workers, args.scheduler)
    except (OutputPathError, ClusterError) as exc:
        return _bad(str(exc))
    # A preset given as a file (not a shipped name): the scripts name it relative to --out, where they are written
    # (a script's preset is looked for beside it first), not as typed here (relative to where the hunt ran).
    written_as = {name: os.path.relpath(path.resolve(), out.resolve())
                  for name, path in zip(presets, files, strict=True) if path is not None and path.parent != cars_dir()}
    for name, shown in written_as.items():  # refused before the hunt runs, not after it, its findings lost
        try:
            shown.encode("utf-8")
        except UnicodeEncodeError:
            return _bad(f"--preset {name}: the scripts a hunt writes name it, and its name is not UTF-8 (a file "
                        "name's bytes, which a script cannot hold); rename that file")
    check_stdout()  # /dev/full or closed: said before the hunt runs, not after
    progress = _Progress()
    try:
        with mapper(args.workers, args.scheduler) as run_map:
            findings = hunting.hunt(presets, args.cars, args.seconds, args.seed, run=run_map, progress=progress,
                                    wave=args.workers or (8 if args.scheduler else 1))
    except ClusterError as exc:
        progress.close()
        return _bad(str(exc))
    progress.close()
    paths: list[Path] = []
    report = None
    with StagedOutputs() as staged:  # the scripts and their report move into --out together, or not at all
        try:
            stage = staged.folder(out) if findings else None
            for f in findings:
                path = _free_path(out, f.monitor, set(paths))
                script = f.script(path.stem, args.seed)
                if f.preset in written_as:  # a preset file of the user's: found from the script's folder
                    script = dataclasses.replace(script, preset=written_as[f.preset])
                atomic_write_text(stage / path.name,
                                  script.file_text(out / path.name, f.explanation(args.seed, args.cars, args.seconds)
                                                   + "\n"))
                paths.append(path)
            render = renderer() if paths else None
            if paths and render is not None:
                from workbench.output.html_report import charts_shown

                staged.replaces(out / "report", charts_shown(out / "report"))  # an earlier hunt's charts
                with quiet_stderr():  # libpng's own complaint would come before carbench's line
                    write_report([stage / p.name for p in paths], stage / "report", deferring(render), paths)
                report = out / "report" / "index.html"
        except OSError as exc:
            return _bad(f"--out {out}: cannot write: {staged.shown(exc.strerror or str(exc))}")
        except ScriptError as exc:  # a minimal script naming a preset file whose name is not UTF-8
            return _bad(exc.raw)  # escaped once, by say (str(exc) is escaped for the window already)
        text = hunting.summary(findings, presets, args.cars, args.seconds, [str(p) for p in paths])
        if report is not None:
            text += f"\nreport: {report}"
        emit(text)  # stdout first: a full or closed stdout fails the hunt before any file is in place
        try:
            staged.commit()
        except OSError as exc:
            return _bad(f"--out {out}: cannot move the outputs into place: {staged.move_problem(exc)}")
        for line in staged.left_behind("an earlier hunt's chart"):  # the outputs are in place: only clutter
            say(f"--out {out / 'report'}: {line}")
    if paths and report is None:
        print(f"carbench: no HTML report of the minimal scripts: {no_renderer()}", file=sys.stderr)
    return EXIT_FAILED if findings else EXIT_OK
