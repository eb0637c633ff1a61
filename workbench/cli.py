"""The ``carbench`` command.

``carbench`` opens the workbench (or, with no display, runs the headless demo); ``replay``,
``presets`` and ``bench`` are headless and never import Qt.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # bad arguments are bad input: exit 2 with one line
        self.exit(EXIT_BAD_INPUT, f"carbench: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="carbench", description="A workbench for debugging and tuning car physics.")
    parser.add_argument("--preset", help="car preset to open (name or path; default sedan)")
    parser.add_argument("--script", help="input script to load into the recorder")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    rp = sub.add_parser("replay", help="replay scripts headless and judge their expectations")
    rp.add_argument("scripts", nargs="+", metavar="SCRIPT", help="script files (TOML)")
    rp.add_argument("--preset", dest="replay_preset", metavar="NAME|PATH", help="replace every script's preset")
    rp.add_argument("--dt", type=float, help="replace every script's timestep [s]")
    rp.add_argument("--csv", metavar="FILE", help="write every channel of every frame (one file per script)")
    rp.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    add_threads_option(rp)

    sub.add_parser("presets", help="list the car presets and input scripts")
    bp = sub.add_parser("bench", help="measure step time, replay speed, batch throughput and GUI frame time")
    bp.add_argument("--quick", action="store_true", help="shorter measurements (less precise)")
    bp.add_argument("--no-gui", action="store_true", help="skip the GUI frame-time measurement")
    bp.add_argument("--json", action="store_true", help="print the figures as JSON")
    sub.add_parser("demo", help="replay the shipped scripts headless and print their verdicts")
    return parser


def add_threads_option(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: how many threads a command's batches use (default: NUMBA_NUM_THREADS)."""
    parser.add_argument("--threads", type=int, metavar="N",
                        help="threads for batches of cars, 1..NUMBA_NUM_THREADS (default: all of them)")


def use_threads(args: argparse.Namespace) -> str | None:
    """Apply ``--threads``; the reason it is refused, or None."""
    if getattr(args, "threads", None) is None:
        return None
    from physics import set_threads

    try:
        set_threads(args.threads)
    except ValueError as exc:
        return f"--threads: {exc}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        problem = use_threads(args)
        if problem:
            return _bad(problem)
        if args.command == "replay":
            return _replay(args.scripts, args.replay_preset, args.dt, args.csv, args.json)
        if args.command == "presets":
            return _presets()
        if args.command == "bench":
            from workbench.bench import run_bench

            return run_bench(quick=args.quick, gui=not args.no_gui, as_json=args.json)
        if args.command == "demo" or not has_display():
            if args.command is None:
                print("carbench: no display found; running the headless demo instead of the window.\n")
            return _demo()
        return _gui(args.preset, args.script)
    except KeyboardInterrupt:
        return 130


def has_display() -> bool:
    """Whether a window could be shown here."""
    if os.environ.get("QT_QPA_PLATFORM", "") in ("offscreen", "minimal"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _bad(message: str) -> int:
    print(f"carbench: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _replay(paths, preset, dt, csv, as_json) -> int:
    from physics import check_dt
    from workbench.output.report import as_json as to_json
    from workbench.output.report import table
    from workbench.runs.replay import replay
    from workbench.scripts.format import ScriptError, load_script
    from workbench.scripts.program import compile_script

    if dt is not None:
        try:
            check_dt(dt)
        except ValueError as exc:
            return _bad(f"--dt: {exc}")
    try:
        programs = [compile_script(load_script(p), preset, dt) for p in paths]
    except ScriptError as exc:
        return _bad(str(exc))
    results = replay(programs)
    if as_json:
        print(json.dumps(to_json(results), indent=2))
    else:
        print(table(results))
    if csv:
        for r, path in zip(results, csv_paths(Path(csv), [r.program.name for r in results]), strict=True):
            try:
                r.log.write_csv(path, r.car, r.program.frames)
            except OSError as exc:
                return _bad(f"--csv: cannot write {path}: {exc.strerror or exc}")
    return EXIT_OK if all(r.passed for r in results) else EXIT_FAILED


def csv_paths(target: Path, names: list[str]) -> list[Path]:
    """One CSV per script: ``target`` itself for one script, else ``<stem>.<script name>.csv`` (made unique)."""
    if len(names) == 1:
        return [target]
    paths, used = [], set()
    for name in names:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "script"
        candidate, n = safe, 2
        while candidate in used:
            candidate, n = f"{safe}-{n}", n + 1
        used.add(candidate)
        paths.append(target.with_name(f"{target.stem}.{candidate}{target.suffix or '.csv'}"))
    return paths


def _presets() -> int:
    from physics import load_preset, preset_names
    from physics.presets import scripts_dir
    from workbench.scripts.format import ScriptError, load_script

    print("Car presets (presets/cars):")
    for name in preset_names():
        p = load_preset(name).params
        drivetrain = "engine, clutch, gearbox" if p.manual else "direct drive"
        print(f"  {name:10s} {p.kind:9s} unit {p.model.unit:2s}  {drivetrain}")
    print("\nInput scripts (presets/scripts):")
    for path in sorted(scripts_dir().glob("*.toml")):
        try:
            s = load_script(path)
            print(f"  {path.name:28s} on {s.preset:9s} {s.duration:6g} s  {s.description}")
        except ScriptError as exc:
            print(f"  {path.name:28s} unreadable: {exc}")
    return EXIT_OK


def demo_paths() -> list[Path]:
    from physics.presets import scripts_dir

    return sorted(scripts_dir().glob("*.toml"))


def _demo() -> int:
    return _replay([str(p) for p in demo_paths()], None, None, None, False)


# Qt's X11 platform plugin loads these system libraries; without them Qt aborts the process.
XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1",
                 "xcb-image": "libxcb-image0", "xcb-render-util": "libxcb-render-util0", "xcb-xkb": "libxcb-xkb1",
                 "xkbcommon-x11": "libxkbcommon-x11-0", "xcb-shape": "libxcb-shape0"}


def missing_x11_libraries() -> list[str]:
    """Debian package names of the libraries Qt's xcb plugin would fail to load (X11 sessions only)."""
    if sys.platform != "linux" or not os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return []
    if os.environ.get("QT_QPA_PLATFORM", "xcb") != "xcb":
        return []
    from ctypes.util import find_library

    return [package for lib, package in XCB_LIBRARIES.items() if find_library(lib) is None]


def _gui(preset: str | None, script: str | None) -> int:
    missing = missing_x11_libraries()
    if missing:
        print("carbench: the window needs system libraries that Qt's X11 plugin loads and this machine lacks;\n"
              f"  on Debian or Ubuntu: sudo apt install {' '.join(missing)}\n"
              "Running the headless demo instead.\n", file=sys.stderr)
        return _demo()
    from workbench.gui.app import run_app

    return run_app(preset=preset, script=script)


if __name__ == "__main__":
    raise SystemExit(main())
