"""``carbench compare``: one script on two cars, two dts or two scripts, or two telemetry CSVs, compared."""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from physics import ParamError
from physics.toml_text import MAX_KEY_PARTS, beyond_a_float, long_key_line, read_float
from workbench.output.files import OutputPathError, check_output_file
from workbench.runs.compare import CompareError, Comparison, compare, read_csv_run, run_of
from workbench.runs.replay import replay
from workbench.scripts.format import ScriptError, Setting, load_script, resolve_script
from workbench.scripts.program import check_step, compile_script
from workbench.streams import check_stdout, say

EXIT_AGREE, EXIT_DIFFER, EXIT_BAD_INPUT = 0, 1, 2
MAX_FRAMES = 2_000_000  # per run: about 600 MB of telemetry for the two runs and their comparison


def parse_assignment(text: str, option: str = "--vs-set") -> tuple[str, Any]:
    """``PATH=VALUE`` with VALUE read as a TOML value (a number, true/false, "text", [list]); bare words are text."""
    path, sep, raw = text.partition("=")
    path, raw = path.strip(), raw.strip()
    if not sep or not path or not raw:
        raise CompareError(f"{option} {text!r}: expected PATH=VALUE, e.g. body.mass=1400")
    if long_key_line(raw) is not None:  # an inline table's key: tomllib's time grows with the square of its length
        raise CompareError(f"{option} {path}: a dotted key of more than {MAX_KEY_PARTS} parts in its value")
    try:
        value = tomllib.loads(f"v = {raw}", parse_float=read_float)["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    except (ValueError, OverflowError, RecursionError) as exc:  # a number of thousands of digits
        from workbench.scripts.format import number_problem

        raise CompareError(f"{option} {path}: {number_problem(exc)}") from None
    numbers = None if isinstance(value, str) else _STRINGS.sub('""', raw)  # the value's text, its strings emptied
    if numbers is not None and _BASED.search(numbers):
        # TOML's hexadecimal, octal and binary integers, alone or in a list (gearbox.ratios=[0x3, ...]): `sweep
        # --param` refuses them, and 0x600 kg read as 1536 kg
        raise CompareError(f"{option} {path}={raw}: a number is typed in decimal here (TOML would read it as {value})")
    if numbers is not None and _UNDERSCORED.search(numbers):
        # TOML reads 1_500 as 1500; `sweep --param` refuses it, as every number typed on the command line
        raise CompareError(f"{option} {path}={raw}: a number is typed without underscores here (TOML would read it "
                           f"as {value})")
    beyond = beyond_a_float({"v": value})  # (lists within lists too)
    if beyond is not None:
        # TOML reads 1e400 as inf and 1e-400 as 0: said as typed, not as a value the user never wrote
        raise CompareError(f"{option} {path}={raw}: {beyond[1]} is beyond a floating-point number's range")
    return path, value


_UNDERSCORED = re.compile(r"[0-9]_[0-9]")  # TOML's 1_500
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')  # a TOML value's strings, where 0x is only text
_BASED = re.compile(r"(?<![0-9A-Za-z_.])[+-]?0[xob]", re.IGNORECASE)  # a hexadecimal, octal or binary integer


def refuse_repeats(items: list[str] | None, option: str) -> None:
    """CompareError naming a parameter given twice with ``option`` (``--vs-set body.mass=1000 --vs-set
    body.mass=1500`` took the last silently, where ``sweep --param`` refuses it)."""
    seen: set[str] = set()
    for item in items or ():
        path = item.partition("=")[0].strip()
        if path in seen:
            raise CompareError(f"{option} {path}: given twice")
        seen.add(path)


def parse_changes(items: list[str], params, option: str) -> dict[str, Any]:
    """``PATH=VALUE`` items typed on the command line, as SI values for ``params.with_values``.

    A value is typed in its parameter's display unit (degrees for a steering lock), as ``sweep --param``
    takes it and as compare's diff shows it; a script's ``[[set]] params`` stay in the preset's own SI
    units. A number out of range is refused with the range in the display unit.
    """
    from physics.units import display_of, to_si
    from workbench.runs.sweep_axes import range_problem
    from workbench.scripts.format import exact_digits

    changes: dict[str, Any] = {}
    for item in items:
        path, value = parse_assignment(item, option)
        try:
            info = params.info(path)
        except ParamError as exc:
            raise CompareError(f"{option}: {exc}") from None
        unit, factor = display_of(info)
        if factor != 1.0 and _is_number(value):
            si = to_si(float(value), info)
            problem = range_problem(info, si)
            if problem:
                raise CompareError(f"{option} {path}={exact_digits(float(value))} ({unit}): {problem}")
            value = si
        elif factor != 1.0 and isinstance(value, list):
            value = [to_si(float(v), info) if _is_number(v) else v for v in value]
        elif factor != 1.0:
            raise CompareError(f"{option} {path}={value!r}: expected a number in {unit}")
        changes[path] = value
    return changes


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _car(name: str, option: str):
    """The preset ``option`` names (by the one rule for names), or CompareError naming the option."""
    from physics import PresetError
    from workbench.names import NameRuleError, load_named_preset

    try:
        return load_named_preset(name)
    except (PresetError, NameRuleError) as exc:
        raise CompareError(f"{option}: {exc}") from None


def build_runs(inputs: list[str], preset: str | None, vs_preset: str | None, vs_set: list[str] | None,
               vs_dt: float | None, vs_script: str | None, check=None):
    """The two runs to compare (CompareError or ScriptError for bad input).

    ``check(files)`` is called with every file the runs read (scripts, presets, CSVs) before any is
    run or read, so that an output can be checked against them.
    """
    check = check or (lambda files: None)
    alternatives = [x is not None for x in (vs_preset, vs_set, vs_dt, vs_script)]
    if len(inputs) == 2:
        # The inputs first: two scripts with --vs-preset were told that "two CSVs are compared as they are".
        for path in inputs:
            if Path(path).suffix.lower() != ".csv":
                raise CompareError(f"{path}: two inputs are compared as telemetry CSVs (.csv); "
                                   "for a script give one SCRIPT and --vs-preset, --vs-set, --vs-dt or --vs-script")
        if any(alternatives) or preset is not None:
            raise CompareError("two CSVs are compared as they are: --preset and --vs-* are for a script")
        check([Path(p) for p in inputs])
        return read_csv_run(inputs[0]), read_csv_run(inputs[1])
    if len(inputs) != 1:
        raise CompareError("give SCRIPT (with one --vs-* option) or two CSVs")
    if sum(alternatives) != 1:
        raise CompareError(f"{inputs[0]}: compare it against one of --vs-preset B, --vs-set PATH=VALUE, "
                           "--vs-dt DT or --vs-script SCRIPT2")
    if Path(inputs[0]).suffix.lower() == ".csv":
        raise CompareError(f"{inputs[0]}: a CSV is compared with another CSV: carbench compare A.csv B.csv")
    script_file = resolve_script(inputs[0])
    script = load_script(script_file)
    files = [script_file]
    if preset is not None:
        preset = _car(preset, "--preset")
    a = compile_script(script, preset)
    if vs_preset is not None:
        b = compile_script(script, _car(vs_preset, "--vs-preset"))
    elif vs_set is not None:
        refuse_repeats(vs_set, "--vs-set")
        changes = parse_changes(vs_set, a.params, "--vs-set")
        try:
            a.params.with_values(changes)
        except ParamError as exc:
            from workbench.scripts.program import change_problem

            raise CompareError(f"--vs-set: {change_problem(exc, changes)}") from None
        from workbench.scripts.program import record_problem
        from workbench.scripts.surfaces import road_lost

        changed = a.params.with_values(changes)
        problem = a.params.swap_problem(changed) or record_problem(changed)
        # said here: compiled, run B would blame a [[set]] the file does not have
        problem = problem or road_lost(script.surfaces, a.params, changed)
        if problem:
            raise CompareError(f"--vs-set: {problem}")
        b = compile_script(replace(script, sets=script.sets + (Setting(0.0, params=changes),)), preset)
    elif vs_dt is not None:
        try:
            check_step(vs_dt)  # the command line's limits, [MIN_DT, MAX_DT], as --dt's
        except ValueError as exc:
            raise CompareError(f"--vs-dt: {exc}") from None
        b = compile_script(script, preset, vs_dt)
    else:
        try:  # named as the option: 'nosuch: no such script file' did not say it was B's ('': nothing at all)
            second = resolve_script(vs_script)
            b_script = load_script(second)
        except ScriptError as exc:
            raise CompareError(f"--vs-script: {exc}") from None
        files.append(second)
        b = compile_script(b_script, preset)
    for which, program in (("A", a), ("B", b)):
        if program.frames > MAX_FRAMES:
            raise CompareError(f"{program.script.source}: run {which} would be {program.frames:,} frames "
                               f"(duration {program.script.duration:g} s at dt {program.dt:g} s); "
                               f"the limit is {MAX_FRAMES:,}")
    check([*files, *(p.preset_path for p in (a, b) if p.preset_path is not None)])
    ra, rb = replay([a, b])
    return run_of(ra), run_of(rb)


def _tolerance(value: float | None, option: str, default: float) -> float:
    if value is None:
        return default
    if not math.isfinite(value) or value < 0:
        raise CompareError(f"{option}: {value!r} must be a finite number >= 0")
    return value


def run(args) -> int:
    """The command: exit 0 when the runs agree, 1 when they differ, 2 for bad input (one line on stderr)."""
    from workbench.runs.compare import ATOL, RTOL

    try:
        atol = _tolerance(args.atol, "--atol", ATOL)
        rtol = _tolerance(args.rtol, "--rtol", RTOL)
        csv = None

        def check(files):
            nonlocal csv
            if args.csv is not None:
                csv = check_output_file(args.csv, "--csv", files)
                from workbench.output.html_report import refuse_inside_presets

                refuse_inside_presets(csv, "--csv")  # not among the shipped presets, as replay's outputs
            check_stdout()  # /dev/full or closed: said before the runs, not after

        if args.csv is not None:
            check_output_file(args.csv, "--csv")  # the path itself, before anything is read
        a, b = build_runs(args.inputs, args.preset, args.vs_preset, args.vs_set, args.vs_dt, args.vs_script, check)
        result: Comparison = compare(a, b, atol, rtol)
    except (CompareError, ScriptError, OutputPathError) as exc:
        say(exc)
        return EXIT_BAD_INPUT
    from workbench.output.files import StagedOutputs
    from workbench.streams import emit

    with StagedOutputs() as staged:
        if args.csv is not None and csv is not None:
            try:
                result.write_csv(staged.file(csv))
            except OSError as exc:
                say(f"--csv: cannot write {csv}: {exc.strerror or exc}")
                return EXIT_BAD_INPUT
        from workbench.names import printable_doc
        emit(json.dumps(printable_doc(result.as_json()), indent=2) if args.json else result.text())  # before the CSV is in place
        try:
            staged.commit()
        except OSError as exc:
            say(f"--csv: cannot move {csv} into place: {exc.strerror or exc}")
            return EXIT_BAD_INPUT
    return EXIT_AGREE if result.agree else EXIT_DIFFER
