"""The ``carbench`` command.

``carbench`` opens the workbench (or, with no display, runs the headless demo); ``replay``, ``sweep``,
``presets`` and ``bench`` are headless and import Qt only to draw charts (``--report``, ``--plot``: loaded, through
workbench.gui.charts, before the run).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from workbench.display import probe_display
from workbench.scripts.limits import (
    DECIMAL,
    DEFAULT_MAX_MEMORY,
    MAX_DURATION,
    MAX_HUNT_CARS,
    MAX_HUNT_SECONDS,
    MAX_SCRIPT_BYTES,
    MIN_DT,
    format_bytes,
)
from workbench.streams import one_line

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a reader that went away

REPLAY_EPILOG = f"""\
SCRIPT is a file, or the name of a shipped script (carbench presets lists them).
limits: dt in [{MIN_DT:g}, 0.05] s; duration at most {MAX_DURATION:g} s; a script file at most
{format_bytes(MAX_SCRIPT_BYTES)}; the telemetry of a run at most --max-memory (default {format_bytes(DEFAULT_MAX_MEMORY)}).
Every output path is checked before the replay starts; nothing is written or printed on bad input.
exit codes: 0 every expectation passed, 1 one failed, 2 bad input (one line on stderr naming the
file, the entry and the reason)."""


# argparse's own messages that quote what was typed as Python writes a string (%r), the value as group "typed"
_TYPED = r"""(?P<typed>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_QUOTING = [re.compile(r"(?P<head>argument .+?: invalid .+? value: )" + _TYPED, re.DOTALL),
            re.compile(r"(?P<head>argument .+?: invalid choice: )" + _TYPED + r"(?P<tail> \(choose from .*\))", re.DOTALL),
            re.compile(r"(?P<head>argument .+?: ignored explicit argument )" + _TYPED, re.DOTALL)]


def _typed_as_typed(message: str) -> str:
    """argparse's ``message`` with the word it quotes as a repr (``invalid choice: 'a\\\\b'``) quoted as typed
    (``'a\\b'``): one_line escapes a backslash, a newline or a byte that is not UTF-8 once, as in carbench's own
    lines, not on top of the repr's escapes (a typed backslash read as four). Any other message as it is."""
    import ast

    for pattern in _QUOTING:
        found = pattern.fullmatch(message)
        if found:
            try:
                typed = ast.literal_eval(found["typed"])
            except (ValueError, SyntaxError):
                return message
            quote = '"' if "'" in typed and '"' not in typed else "'"  # it's reads "it's", not 'it's'
            return f"{found['head']}{quote}{typed}{quote}{found.groupdict().get('tail') or ''}"
    return message


class _Parser(argparse.ArgumentParser):
    def parse_known_args(self, args=None, namespace=None):
        self._arguments_seen = list(sys.argv[1:] if args is None else args)  # for error(): the value after an option
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # bad arguments are bad input: exit 2 with one line
        message = self._value_like_an_option(message) or _typed_as_typed(message)
        self.exit(EXIT_BAD_INPUT, f"carbench: {one_line(message)}\n")

    def _value_like_an_option(self, message: str) -> str | None:
        """For argparse's 'expected one argument' where the value given starts with '-' (``--max-memory -1G``,
        ``--seconds -inf``): argparse took it for an option. What is wrong with the value, as ``--max-memory=-1G``
        would have said, or how to give it; None where the word after the option is an option indeed."""
        found = re.fullmatch(r"argument (\S+): expected one argument", message)
        seen = getattr(self, "_arguments_seen", [])
        if not found:
            return None
        names = found.group(1).split("/")
        at = next((i for i, word in enumerate(seen) if word in names), None)
        if at is None or at + 1 >= len(seen) or not seen[at + 1].startswith("-") or seen[at + 1] == "--":
            return None
        value, option = seen[at + 1], seen[at]
        if not re.match(r"-(?:[0-9.]|nan|inf)", value, re.IGNORECASE):
            return None  # a word that only looks like an option (--jsn mistyped, -x): argparse's line is the true one
        head = value.split("=", 1)[0]
        if any(name.startswith(head) for name in self._option_string_actions):
            return None  # an option indeed (or its abbreviation): argparse's message is true
        action = self._option_string_actions[option]
        if callable(action.type):
            try:
                action.type(value)
            except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
                name = getattr(action.type, "__name__", "")  # argparse's own words for a value a type refuses
                reason = str(exc) if isinstance(exc, argparse.ArgumentTypeError) else f"invalid {name} value: '{value}'"
                return f"argument {found.group(1)}: {reason}"
        return f"argument {found.group(1)}: '{value}' was read as an option; give it as {option}={value}"

    def _print_message(self, message: str, file=None) -> None:
        """--help and --version on stdout as any output (argparse drops a failed write: exit 0 into a full stdout)."""
        if message and (file is None or file is sys.stdout):
            from workbench.streams import emit

            emit(message.removesuffix("\n"))
            return
        super()._print_message(message, file)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("carbench")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _memory(text: str) -> int:
    from workbench.scripts.limits import MAX_MEMORY_LIMIT, parse_bytes

    try:
        size = parse_bytes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if size > MAX_MEMORY_LIMIT:
        raise argparse.ArgumentTypeError(f"'{text}': at most {format_bytes(MAX_MEMORY_LIMIT)}")
    return size


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="carbench", description="A workbench for debugging and tuning car physics.")
    parser.add_argument("--version", action="version", version=f"carbench {version()}")
    parser.add_argument("--preset", help="car preset to open (name or path; default sedan)")
    parser.add_argument("--script", help="input script to load into the recorder (a file or a shipped name)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    rp = sub.add_parser("replay", help="replay scripts headless and judge their expectations",
                        epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("scripts", nargs="+", metavar="SCRIPT", help="script files (TOML) or shipped script names")
    rp.add_argument("--preset", dest="replay_preset", metavar="NAME|PATH", help="replace every script's preset")
    rp.add_argument("--dt", type=real_number, help=f"replace every script's timestep [s], {MIN_DT:g} .. 0.05")
    rp.add_argument("--csv", metavar="FILE", help="write every channel of every frame (one file per script)")
    rp.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    rp.add_argument("--monitors", action="store_true", help="check every invariant monitor on every frame")
    rp.add_argument("--report", metavar="DIR", help="write an HTML report with a chart per expectation (index.html)")
    rp.add_argument("--mcap", metavar="FILE", help="write telemetry, parameters and verdicts as MCAP (Foxglove, "
                    "PlotJuggler)")
    add_threads_option(rp)
    rp.add_argument("--max-memory", type=_memory, default=DEFAULT_MAX_MEMORY, metavar="SIZE",
                    help=f"refuse a replay whose telemetry would need more (e.g. 512M, 8G; default "
                         f"{format_bytes(DEFAULT_MAX_MEMORY)})")

    sw = sub.add_parser("sweep", help="run one script over a grid or sample of parameter values as one batch")
    sw.add_argument("script", metavar="SCRIPT", help="script file (TOML) or shipped script name")
    sw.add_argument("--param", dest="params", action="append", default=[], metavar="PATH=SPEC", required=True,
                    help="an axis: PATH=LO:HI:N, PATH=LO:HI:N:log or PATH=V1,V2,... (with --samples PATH=LO:HI[:log]);"
                         " values in the parameter's display unit (deg for angles)")
    sw.add_argument("--samples", type=whole_number, metavar="N", help="a Latin-hypercube sample of N cars inside the ranges")
    sw.add_argument("--seed", type=whole_number, metavar="S", help="the sample's random seed (default 0)")
    sw.add_argument("--preset", dest="sweep_preset", metavar="NAME|PATH", help="replace the script's preset")
    sw.add_argument("--dt", type=real_number, help="replace the script's timestep [s]")
    sw.add_argument("--out", default=".", metavar="DIR", help="folder for sweep.csv and the charts (default: here)")
    sw.add_argument("--json", action="store_true", help="print the summary as JSON")
    sw.add_argument("--plot", action="store_true", help="write outcome charts (PNG) into DIR")
    where = sw.add_mutually_exclusive_group()
    where.add_argument("--workers", type=whole_number, metavar="N", help="run on a local Dask cluster of N processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (tcp://HOST:PORT)")
    sw.add_argument("--chunk", type=whole_number, default=None, metavar="CARS", help="cars per batch (default 8192)")
    add_threads_option(sw)

    add_threads_option(_add_hunt(sub))
    _add_compare(sub)
    _add_devices(sub)
    _add_manoeuvre(sub)
    sub.add_parser("presets", help="list the car presets and input scripts")
    bp = sub.add_parser("bench", help="measure step time, replay speed, batch throughput and GUI frame time")
    bp.add_argument("--quick", action="store_true", help="shorter measurements (less precise)")
    bp.add_argument("--no-gui", action="store_true", help="skip the GUI frame-time measurement")
    bp.add_argument("--json", action="store_true", help="print the figures as JSON")
    sub.add_parser("demo", help="replay the shipped scripts headless and print their verdicts")
    return parser


# The subcommands' parsers are built here without importing their commands (the model and numba among them):
# ``carbench --help``, ``--version`` and a mistyped option answer in a fraction of a second.

def _add_hunt(sub) -> argparse.ArgumentParser:
    """The `hunt` subcommand's parser (returned, so the command can add its shared options)."""
    hp = sub.add_parser("hunt", help="search random adversarial inputs for invariant violations; write minimal scripts")
    hp.add_argument("--preset", dest="hunt_presets", nargs="+", action="extend", metavar="NAME|PATH",
                    help="car presets to hunt on (default: every shipped preset)")
    hp.add_argument("--cars", type=whole_number, default=100, help=f"random scripts per preset, run as one batch "
                    f"(1..{MAX_HUNT_CARS}; default 100)")
    hp.add_argument("--seconds", type=real_number, default=30.0,
                    help=f"length of each random script [s] (up to {MAX_HUNT_SECONDS:g}; default 30)")
    hp.add_argument("--seed", type=whole_number, default=0, help="random seed (the same seed finds the same scripts)")
    hp.add_argument("--out", default="hunt", metavar="DIR", help="folder for the minimal scripts (default ./hunt)")
    hp.add_argument("--workers", type=whole_number, help="run on a local Dask cluster of N worker processes")
    hp.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (tcp://HOST:PORT)")
    return hp


def _add_compare(sub) -> None:
    """The ``compare`` subcommand's arguments."""
    cp = sub.add_parser("compare", help="compare two runs: parameter diff, verdict flips, first divergence")
    cp.add_argument("inputs", nargs="+", metavar="SCRIPT|CSV", help="a script, or two telemetry CSVs carbench wrote")
    cp.add_argument("--preset", metavar="NAME|PATH", help="run A's car (default: the script's preset)")
    vs = cp.add_mutually_exclusive_group()
    vs.add_argument("--vs-preset", metavar="NAME|PATH", help="run B on another car")
    vs.add_argument("--vs-set", action="append", metavar="PATH=VALUE",
                    help="run B with a parameter changed (repeatable); the value in the parameter's display unit "
                         "(deg for angles), as sweep --param")
    vs.add_argument("--vs-dt", type=real_number, metavar="DT", help="run B at another timestep [s]")
    vs.add_argument("--vs-script", metavar="SCRIPT2", help="run B is another script, on its own preset (or --preset's)")
    cp.add_argument("--atol", type=real_number, help="absolute tolerance (default 1e-9), in display units")
    cp.add_argument("--rtol", type=real_number, help="relative tolerance (default 1e-9)")
    cp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cp.add_argument("--csv", metavar="FILE", help="write per frame NAME.a, NAME.b, NAME.delta of every channel")


def _add_devices(sub) -> None:
    dp = sub.add_parser("devices", help="list the game controllers and wheels SDL2 sees, with their axes and buttons")
    dp.add_argument("--json", action="store_true", help="print the devices as JSON")


def _add_manoeuvre(sub) -> None:
    from workbench.manoeuvres.listing import NAMES

    mp = sub.add_parser("manoeuvre", help="run handling tests (ISO 4138, 7401, 3888-2, 7975, 21994, UN R140, "
                                          "acceleration, coast-down) and print their KPIs")
    mp.add_argument("name", metavar="NAME|all", help=f"a test: {', '.join(NAMES)}; or all of them")
    mp.add_argument("--preset", dest="manoeuvre_preset", default="sedan", metavar="NAME|PATH",
                    help="the car (default sedan)")
    mp.add_argument("--set", dest="sets", action="append", default=[], metavar="PATH=VALUE",
                    help="change a parameter of the car, and of the --vs-preset car too (repeatable; the value "
                         "is read as TOML, in the parameter's display unit: deg for angles, as sweep --param)")
    vs = mp.add_mutually_exclusive_group()
    vs.add_argument("--vs-preset", metavar="NAME|PATH", help="a second car: print both and the change")
    vs.add_argument("--vs-set", action="append", metavar="PATH=VALUE",
                    help="a second car: the first with these parameters changed (repeatable; display units)")
    mp.add_argument("--json", action="store_true", help="print the KPIs as JSON")
    mp.add_argument("--report", metavar="DIR", help="write an HTML report with the KPI tables and charts (index.html)")


_WHOLE = re.compile(r"[+-]?[0-9]+")


def whole_number(text: str) -> int:
    """An option's whole number, in ASCII digits (and a sign): Python's ``int`` also reads other scripts' digits
    ("٢" as 2), underscores and surrounding spaces, which numba's own NUMBA_NUM_THREADS refuses and no shell user
    means. argparse says "invalid whole number value" for anything else."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(text)
    return int(text)


whole_number.__name__ = "whole number"  # argparse names the type in its message


def real_number(text: str) -> float:
    """An option's number in ASCII (workbench.scripts.limits.DECIMAL): ``float`` reads "0.0\u0661" as 0.01, which no
    shell user means, and argparse says "invalid number value" for it. A number beyond a float's range either way
    (``1e309``, ``1e-999``) is refused as typed: read by ``float``, the refusals that follow named inf and 0.0, values
    the user never wrote."""
    from physics.toml_text import underflows

    if not DECIMAL.fullmatch(text):
        raise ValueError(text)
    value = float(text)
    if math.isinf(value) or underflows(text, value):
        raise argparse.ArgumentTypeError(f"'{text}' is beyond a floating-point number's range")
    return value


real_number.__name__ = "number"


def add_threads_option(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: how many threads a command's batches use (default: NUMBA_NUM_THREADS)."""
    parser.add_argument("--threads", type=whole_number, metavar="N",
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


def entry(argv: Sequence[str] | None = None) -> int:
    """The ``carbench`` command (and ``python -m workbench``): :func:`main`, then Ctrl-C ignored while the interpreter
    shuts down. The command is over and its outputs are in place: a Ctrl-C in that last instant printed a
    KeyboardInterrupt traceback from an exit handler of numba's, and the exit code was the command's anyway."""
    try:
        return main(argv)
    except KeyboardInterrupt:  # before the command's own handling is in place (its first imports)
        _say("interrupted")
        return 130
    finally:  # --help and --version end in SystemExit
        with contextlib.suppress(OSError, ValueError):  # not the main thread, or no such signal here
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _after(exc: BaseException) -> str:
    """What a signal's exception says the command had done when it came (workbench.signals.held_signals)."""
    after = getattr(exc, "after", "")
    return f" ({after})" if after else ""


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: its exit code. stderr is guarded for the whole run (workbench.streams): a full or
    closed stderr drops carbench's messages, never changes the exit code."""
    from workbench.streams import TolerantStream

    _usable_streams()
    guarded = sys.stderr if isinstance(sys.stderr, TolerantStream) else TolerantStream(sys.stderr)
    saved, sys.stderr = sys.stderr, guarded
    try:
        return _guarded_main(argv)
    finally:
        if sys.stderr is guarded:
            sys.stderr = saved


def _guarded_main(argv: Sequence[str] | None) -> int:
    from workbench.numba_env import numba_env_problem, tidy_numba_env
    from workbench.signals import Terminated, signals_as_exceptions
    from workbench.streams import StdoutError, flush_stdout, stdout_to_devnull

    tidy_numba_env()
    problem = numba_env_problem()
    if problem:  # before anything imports numba, which reads these once
        return _bad(problem)
    try:
        with signals_as_exceptions():
            code = _main(argv)
        flush_stdout()
        return code
    except StdoutError as exc:
        return _bad(str(exc))
    except KeyboardInterrupt as exc:
        _say("interrupted" + _after(exc))
        return 130
    except RuntimeError as exc:
        # A Ctrl-C while a module loads, inside a class body's __set_name__ (a dataclass's field), comes wrapped in
        # a RuntimeError (Python 3.11): it printed a traceback and exited 1, the code of a failed expectation.
        if isinstance(exc.__cause__, KeyboardInterrupt):
            _say("interrupted" + _after(exc.__cause__))
            return 130
        raise
    except Terminated as exc:  # SIGTERM, SIGHUP or SIGQUIT: outputs cleaned up on the way out, like Ctrl-C
        _say(f"stopped by signal {exc.signum}" + _after(exc))
        return exc.exit_code
    except MemoryError:
        # The machine ran out where no size check foresaw it: one line, never a traceback (its outputs are staged and
        # left out as for any failure).
        return _bad("out of memory: the machine could not hold what this run needs (--max-memory bounds a run's "
                    "telemetry; a shorter script, a larger --dt or fewer cars need less)")
    except BrokenPipeError:
        # The reader went away (carbench demo | head -3): stop quietly. Later flushes of the
        # closed stdout would fail again, so it is pointed at /dev/null.
        stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # a path the checks did not foresee, a full stdout: one line, never a traceback
        from workbench.names import path_problem

        if exc.filename is None:
            stdout_to_devnull()
            return _bad(f"cannot write the output: {path_problem(exc)}")
        return _bad(f"{exc.filename}: {path_problem(exc)}")


def _say(message: str) -> None:
    from workbench.streams import say

    say(message)


def _usable_streams() -> None:
    """A closed stdout (``>&-``) fails the first write to it like a full one (exit 2, one line); a closed
    stderr (``2>&-``) takes nothing. Either file descriptor is held open on /dev/null, so that no file
    the command opens takes its number (an error would land in it). Text that the terminal's encoding
    cannot show is escaped, not a traceback."""
    from workbench.streams import ClosedStdout

    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        usable = stream is not None
        if usable and getattr(stream, "fileno", None) is not None:
            try:
                usable = stream.fileno() != fd or _fd_open(fd)
            except (OSError, ValueError, AttributeError):
                usable = True  # not a real file (a test's capture): leave it alone
        if not usable:
            with contextlib.suppress(OSError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                if devnull != fd:
                    os.dup2(devnull, fd)
                    os.close(devnull)
            if name == "stdout":
                sys.stdout = ClosedStdout()
            else:
                sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process's life
            continue
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    problem = use_threads(args)
    if problem:
        return _bad(problem)
    if args.command == "replay":
        return _replay(args.scripts, args.replay_preset, args.dt, args.csv, args.json, args.max_memory,
                       args.monitors, args.report, args.mcap)
    if args.command == "hunt":
        from workbench.runs import hunt_cli

        return hunt_cli.run(args, chart_renderer, lambda: charts_need("it"))
    if args.command == "sweep":
        return _sweep(args)
    if args.command == "compare":
        from workbench.runs.compare_command import run as run_compare

        return run_compare(args)
    if args.command == "devices":
        from workbench.controllers.devices_command import run as run_devices

        return run_devices(args)
    if args.command == "manoeuvre":
        from workbench.manoeuvres.manoeuvre_command import run as run_manoeuvre

        render = chart_renderer() if args.report is not None else None
        if args.report is not None and render is None:
            return _bad(charts_need("--report"))
        return run_manoeuvre(args, render)
    if args.command == "presets":
        return _presets()
    if args.command == "bench":
        from workbench.bench import run_bench

        return run_bench(quick=args.quick, gui=not args.no_gui, as_json=args.json)
    if args.command == "demo":
        return _demo()
    problem = _check_window_arguments(args.preset, args.script)
    if problem:
        return _bad(problem)
    probe = probe_display()
    if probe.platform is None:
        print(f"carbench: {one_line(probe.reason)}; running the headless demo instead of the window.\n", file=sys.stderr)
        return _demo()
    return _gui(args.preset, args.script, probe.platform)


def has_display() -> bool:
    """Whether a window could be shown here (the display is probed, not only named)."""
    return probe_display().platform is not None


def _check_window_arguments(preset: str | None, script: str | None) -> str | None:
    """Why ``--preset``/``--script`` cannot be opened (None when they can); checked before any window or demo."""
    from physics import PresetError
    from workbench.names import NameRuleError, load_named_preset
    from workbench.output.files import same_preset_file
    from workbench.scripts.format import ScriptError, load_script, resolve_script
    from workbench.scripts.program import compile_script

    car = program = None
    try:
        if preset is not None:
            car = load_named_preset(preset)
        if script is not None:
            program = compile_script(load_script(resolve_script(script)))
    except (PresetError, NameRuleError) as exc:
        return f"--preset: {exc}"
    except ScriptError as exc:
        return f"--script: {exc}"
    if car is not None and program is not None and not same_preset_file(car.path, program.preset_path):
        # A script drives its own car (the window says the same; with no display the demo ran instead, exit 0).
        own = program.preset if program.preset_path is None else program.preset_path.stem
        return one_line(f"--preset {preset}: the script {script} drives its own car, {own}; give one of the two "
                        "(carbench replay SCRIPT --preset NAME replays a script on another car)")
    return None



def _bad(message: str) -> int:
    _say(message)
    return EXIT_BAD_INPUT


def chart_renderer():
    """The PNG renderer for reports (pyqtgraph offscreen), or None where PySide6 or pyqtgraph is missing or cannot
    load (:func:`charts_need` says which). Their modules are loaded here, before any run: found but unable to load
    (Qt's libraries need the system's libEGL), the renderer ended the command in a traceback after the run."""
    global _RENDERER_PROBLEM
    _RENDERER_PROBLEM = None
    if not _installed("PySide6", "pyqtgraph"):  # the renderer imports them when it draws
        return None
    try:
        from workbench.gui.charts import load_qt, render_png

        load_qt()
    except (ImportError, OSError) as exc:
        _RENDERER_PROBLEM = one_line(str(exc)) or type(exc).__name__
        return None
    return render_png


_RENDERER_PROBLEM: str | None = None


def charts_need(option: str) -> str:
    """The one line saying why ``option`` (--report, --plot) cannot draw its charts, after :func:`chart_renderer`
    found no renderer."""
    if _RENDERER_PROBLEM:
        return f"{option} needs PySide6 and pyqtgraph, which are installed but do not load here: {_RENDERER_PROBLEM}"
    return f"{option} needs PySide6 and pyqtgraph"


def _replay(paths, preset, dt, csv, as_json, max_memory: int = DEFAULT_MAX_MEMORY, monitors: bool = False,
            report: str | None = None, mcap: str | None = None) -> int:
    """Check everything (scripts, preset, dt, memory, every output path), then run, then print.

    Nothing reaches stdout, and no file is written, unless the replay ran to its end.
    """
    from workbench.output.csv_stream import CsvStreams
    from workbench.output.files import OutputPathError, StagedOutputs, check_output_file
    from workbench.output.progress import ProgressBar
    from workbench.output.report import as_json as to_json
    from workbench.output.report import table
    from workbench.runs.monitors import check_results, violations_json, violations_table
    from workbench.runs.replay import replay, replay_bytes
    from workbench.runs.stamp import recording_note
    from workbench.scripts.format import ScriptError, load_script, resolve_script
    from workbench.scripts.limits import LimitError, check_memory_total
    from workbench.scripts.program import check_step, compile_script
    from workbench.signals import deferring
    from workbench.streams import check_stdout, emit

    if dt is not None:
        try:
            check_step(dt)
        except ValueError as exc:
            return _bad(f"--dt: {exc}")
    try:
        files = [resolve_script(p) for p in paths]
        programs = [compile_script(load_script(f), preset, dt, max_memory, memory_option="--max-memory")
                    for f in files]
    except ScriptError as exc:
        return _bad(str(exc))
    except MemoryError:
        return _bad(f"not enough memory to prepare the replay (--max-memory is {format_bytes(max_memory)})")
    frames, need = replay_bytes(programs)
    try:
        check_memory_total(frames, need, max_memory, len(programs))
    except LimitError as exc:
        return _bad(str(exc))
    inputs = [*files, *(p.preset_path for p in programs if p.preset_path is not None)]
    targets = []
    render = None
    try:
        if csv is not None:
            if not csv.strip():
                check_output_file(csv, "--csv")  # refuses the empty path
            targets = [check_output_file(t, "--csv", inputs)
                       for t in csv_paths(Path(csv), [p.name for p in programs])]
        if mcap is not None:
            check_output_file(mcap, "--mcap", [*inputs, *targets])
        from workbench.output.html_report import refuse_inside_presets

        for target, option in [*((t, "--csv") for t in targets), *([(mcap, "--mcap")] if mcap is not None else [])]:
            refuse_inside_presets(target, option)  # a CSV named *.toml there was listed, and refused, as a script
        if report is not None:
            from workbench.output.html_report import check_report_dir

            check_report_dir(report, "--report", [*inputs, *targets, *([mcap] if mcap else [])])
            render = chart_renderer()
            if render is None:
                return _bad(charts_need("--report"))
            render = deferring(render)
    except OutputPathError as exc:
        return _bad(str(exc))
    check_stdout()  # /dev/full or closed: said now, not after the run
    progress = ProgressBar(frames)
    with StagedOutputs() as staged:
        try:
            staged_csv = [staged.file(t) for t in targets]  # made beside each target: that folder may refuse it
            with CsvStreams(staged_csv, [p.frames for p in programs]) as streams:

                def listener(members, log, done):
                    if targets:
                        streams(members, log, done)
                    progress(members, log, done)

                results = replay(programs, listener)
        except OSError as exc:
            return _bad(f"--csv: cannot write {csv}: {exc.strerror or exc}")
        except MemoryError:  # a budget raised past what the machine has
            return _bad(f"not enough memory for {frames:,} frames of telemetry ({format_bytes(need)}); "
                        "lower --max-memory to what this machine has, or shorten the script")
        finally:
            progress.close()
        found = check_results(results, everything=monitors)
        if mcap is not None:
            from workbench.output.mcap_log import write_mcap

            try:
                write_mcap(results, staged.file(mcap), found)
            except OSError as exc:
                return _bad(f"--mcap: cannot write {mcap}: {exc.strerror or exc}")
        if report is not None:
            from workbench.output.html_report import charts_shown, write_report
            from workbench.streams import quiet_stderr

            try:
                staged.replaces(report, charts_shown(report))  # an earlier report's charts this one does not draw
                with quiet_stderr():  # libpng's own complaint would come before carbench's line
                    write_report(results, staged.folder(report), render, found, every_monitor=monitors)
            except OSError as exc:
                return _bad(f"--report: cannot write into {report}: {staged.shown(exc.strerror or str(exc))}")
        for program in programs:
            note = recording_note(program)
            if note:
                _say(note)
        checked = monitors or any(p.script.monitors for p in programs)
        if as_json:
            doc = to_json(results)
            if checked:
                doc["monitors"] = violations_json(found)
                doc["passed"] = doc["passed"] and not found
            from workbench.names import printable_doc
            text = json.dumps(printable_doc(doc), indent=2)  # file names in it: UTF-8 or escaped
        else:
            text = table(results)
            if checked:
                text += "\n" + violations_table(found, len(results) if monitors
                                                else sum(bool(p.script.monitors) for p in programs))
        emit(text)  # stdout first: a full or closed stdout fails the run before any file is in place
        try:
            staged.commit()
        except OSError as exc:
            return _bad(f"cannot move the outputs into place: {staged.move_problem(exc)}")
        for line in staged.left_behind("an earlier report's chart"):  # the outputs are in place: only clutter
            _say(f"--report {report}: {line}")
    if len(targets) > 1:  # which file is which script's: their names are made from the scripts' own, made unique
        for target, program in zip(targets, programs, strict=True):
            print(f"csv: {one_line(target)} <- {one_line(program.name)} ({one_line(program.script.source)})",
                  file=sys.stderr)
    if report is not None:
        print(f"report: {one_line(Path(report) / 'index.html')}", file=sys.stderr)
    return EXIT_OK if all(r.passed for r in results) and not found else EXIT_FAILED


def _sweep(args) -> int:
    from workbench.runs.sweep import DEFAULT_CHUNK
    from workbench.runs.sweep_command import SweepArgs, run

    render = None
    if args.plot:
        render = chart_renderer()
        if render is None:
            return _bad(charts_need("--plot"))
    return run(SweepArgs(args.script, args.params, args.samples, args.seed, args.sweep_preset, args.dt, args.out,
                         args.json, args.plot, args.workers, args.scheduler,
                         DEFAULT_CHUNK if args.chunk is None else args.chunk), render)


def _installed(*modules: str) -> bool:
    import importlib.util

    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except (ImportError, ValueError):
        return False


def csv_paths(target: Path, names: list[str]) -> list[Path]:
    """One CSV per script: ``target`` itself for one script, else ``<stem>.<script name>.csv`` (made unique), cut to
    the bytes an output's name may have (workbench.output.files.MAX_NAME_BYTES, room kept for its staged name): the
    script's name (a string in its file, of any length) to what ``target``'s stem leaves, keeping room for the suffix
    that makes it unique, and a stem that leaves too little for a name of 16 characters cut too."""
    from workbench.output.files import MAX_NAME_BYTES

    if len(names) == 1:
        return [target]
    suffix = target.suffix or ".csv"
    stem = os.fsencode(target.stem)
    room = MAX_NAME_BYTES - len(stem) - 1 - len(os.fsencode(suffix)) - 6  # ".", the suffix, "-99999"
    if room < 16:
        cut = len(stem) - (16 - room)
        while cut > 0 and stem[cut] & 0xC0 == 0x80:  # not within a character's UTF-8 bytes
            cut -= 1
        stem, room = stem[:cut], 16
    from workbench.names import unique_names

    safe = [re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:room].strip("._") or "script" for name in names]
    return [target.with_name(f"{os.fsdecode(stem)}.{name}{suffix}") for name in unique_names(safe)]


def _presets() -> int:
    from physics import load_preset, preset_names
    from physics.presets import scripts_dir
    from workbench.scripts.format import ScriptError, load_script
    from workbench.streams import emit

    lines = ["Car presets (presets/cars):"]
    names = preset_names()
    wide = max((len(n) for n in names), default=0)  # columns as wide as the longest name (sedan_single_track)
    for name in names:
        p = load_preset(name).params
        drivetrain = "engine, clutch, gearbox" if p.manual else "direct drive"
        lines.append(f"  {name:{wide}s} {p.kind:9s} unit {p.model.unit:2s}  {drivetrain}")
    lines.append("\nInput scripts (presets/scripts):")
    rows = []
    for path in sorted(scripts_dir().glob("*.toml")):
        try:
            s = load_script(path)
            rows.append((path.name, s))
        except ScriptError as exc:
            rows.append((path.name, exc))
    file_w = max((len(n) for n, _ in rows), default=0)
    car_w = max((len(s.preset) for _, s in rows if not isinstance(s, ScriptError)), default=0)
    for name, s in rows:
        if isinstance(s, ScriptError):
            lines.append(f"  {name:{file_w}s} unreadable: {s}")
        else:
            lines.append(f"  {name:{file_w}s} on {s.preset:{car_w}s} {s.duration:6g} s  {s.description}")
    emit("\n".join(lines))  # a full or closed stdout in the words of every other command's (workbench.streams)
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
    if sys.platform != "linux" or not os.environ.get("DISPLAY"):
        return []
    qpa = os.environ.get("QT_QPA_PLATFORM", "")
    if qpa not in ("", "xcb") or (not qpa and os.environ.get("WAYLAND_DISPLAY")):
        return []  # another platform, or Qt's own choice in a Wayland session (xcb only when the probe fell back to it)
    from ctypes.util import find_library

    return [package for lib, package in XCB_LIBRARIES.items() if find_library(lib) is None]


def _gui(preset: str | None, script: str | None, platform: str | None = None) -> int:
    if platform in ("xcb", "wayland") and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = platform  # the one the probe reached, not one Qt might try first
    missing = missing_x11_libraries()
    if missing:
        print("carbench: the window needs system libraries that Qt's X11 plugin loads and this machine lacks;\n"
              f"  on Debian or Ubuntu: sudo apt install {' '.join(missing)}\n"
              "Running the headless demo instead.\n", file=sys.stderr)
        return _demo()
    from workbench.gui.app import run_app
    from workbench.signals import restore_default_signals

    restore_default_signals()
    from workbench.names import resolve_preset_name
    from workbench.scripts.format import resolve_script

    return run_app(preset=str(resolve_preset_name(preset)) if preset else None,
                   script=str(resolve_script(script)) if script else None)


if __name__ == "__main__":
    raise SystemExit(main())
