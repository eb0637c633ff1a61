"""Hostile inputs, as a new user might type them: every one is refused cleanly.

Each case runs the ``carbench`` command in-process and checks its exit code (2), that stderr is one
line starting ``carbench: `` and naming the file or entry at fault, that nothing reached stdout (not
even ``--json``), that there is no traceback, and that no file was written or changed.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cli_calls import run, snapshot

from physics.presets import cars_dir, scripts_dir
from workbench import cli

HEAD = '[script]\nname = "h"\npreset = "sedan"\nduration = 4.0\n'
HOLD = '[[hold]]\nkeys = ["throttle"]\nfrom = 0.0\nto = 2.0\n'
EXPECT = '[[expect]]\nchannel = "speed"\nat = 3.0\nmin = 0.0\n'
GOOD = HEAD + HOLD + EXPECT
SEDAN = (cars_dir() / "sedan.toml").read_text(encoding="utf-8")
CLUTCH = str(scripts_dir() / "clutch_coast.toml")
LAUNCH = str(scripts_dir() / "launch_shift.toml")


RECORDED = '''[script]
name = "r"
preset = "manual003"
duration = 1.0
dt = 0.01
frames = 100

[recorded]
carbench = "VERSION"
numpy = "2.4.6"
preset = "manual003"
preset_sha256 = "9c21d585398385c158a474345ca58c4b2cc2c6aeb8745e438cb0790ba4737a4b"
params_sha256 = "9c21d585398385c158a474345ca58c4b2cc2c6aeb8745e438cb0790ba4737a4b"
dt = 0.01
changed = []
'''


def head(**changes) -> str:
    """HEAD with [script] keys replaced (value text as TOML) or removed (None)."""
    base = {"name": '"h"', "preset": '"sedan"', "duration": "4.0"}
    base.update(changes)
    return "[script]\n" + "".join(f"{k} = {v}\n" for k, v in base.items() if v is not None)


def sedan_with(key: str, value: str) -> str:
    lines = SEDAN.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(f"{key} = "))
    lines[i] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


@dataclass
class Case:
    id: str
    needles: list[str]
    script: str | bytes | None = GOOD  # written to s.toml (None: not written)
    preset: str | bytes | None = None  # written to car.toml and passed as --preset car.toml
    args: list[str] = field(default_factory=list)  # after the script (or the whole argv with `argv`)
    argv: list[str] | None = None  # the whole command line instead of "replay s.toml ..."
    setup: str | None = None  # a special file to make: "fifo", "dir", "socket", "big", "bigpreset", "link"


def S(id, text, *needles, **kw) -> Case:  # a bad script
    return Case(id, ["s.toml", *needles], script=text, **kw)


def P(id, text, *needles, **kw) -> Case:  # a bad preset file
    return Case(id, ["car.toml", *needles], preset=text, **kw)


CASES = [
    # -- the script's TOML and its [script] table ------------------------------------------------
    S("toml-syntax", "[script\nname = 1\n", "not valid TOML", "line 1"),
    S("toml-unclosed-string", HEAD + 'description = "open\n', "not valid TOML"),
    S("toml-duplicate-key", HEAD + "duration = 5.0\n", "not valid TOML"),
    S("toml-nested-too-deep", HEAD + "x = " + "[" * 20000 + "\n", "not valid TOML"),
    S("not-utf8", (GOOD.replace('"h"', '"caf\xe9"')).encode("latin-1"), "not UTF-8"),
    S("binary-garbage", b"\x00\x01\x02\xff\xfe", "not UTF-8"),
    S("empty-file", "", "[script]", "missing"),
    S("only-comments", "# nothing here\n", "[script]", "missing"),
    S("script-is-a-value", "script = 5\n", "[script]", "must be a table", "got script = 5"),
    S("script-array", '[[script]]\nname = "h"\npreset = "sedan"\nduration = 1.0\n', "[script]", "not an array"),
    S("unknown-table", GOOD + "[bogus]\nx = 1\n", "bogus", "unknown table"),
    # a preset given as a script, and (below) a script given as a preset, say which they are
    S("a-preset", "[model]\nkind = \"dynamic\"\n[body]\nmass = 1.0\n", "a car's parameters", "not a script",
      "Open preset"),
    S("unknown-script-key", HEAD + "speed = 3\n", "[script]", "unknown key `speed`"),
    S("missing-name", head(name=None), "`name` is missing"),
    S("missing-preset", head(preset=None), "`preset` is missing"),
    S("missing-duration", head(duration=None), "`duration` is missing"),
    S("name-not-string", head(name="3"), "[script] name", "non-empty string"),
    S("name-empty", head(name='""'), "[script] name", "non-empty string"),
    S("preset-not-string", head(preset="[1]"), "[script] preset"),
    S("duration-string", head(duration='"8"'), "[script] duration", "finite number"),
    S("duration-bool", head(duration="true"), "[script] duration", "finite number"),
    S("duration-inf", head(duration="inf"), "[script] duration", "finite number"),
    S("duration-nan", head(duration="nan"), "[script] duration", "finite number"),
    S("duration-zero", head(duration="0.0"), "[script] duration", "duration: 0 s: must be positive"),
    S("duration-negative", head(duration="-3.0"), "[script] duration", "must be positive"),
    S("duration-1e9", head(duration="1e9"), "[script] duration", "86400"),
    S("duration-1e6", head(duration="1e6"), "[script] duration", "86400"),
    # just over the limit: the value as typed, not rounded to the limit itself
    S("duration-just-over", head(duration="86400.0001"), "[script] duration: 86400.0001 s is longer", "86400 s"),
    S("duration-over-budget", head(duration="80000.0"), "9,600,001 frames", "GiB", "memory budget"),
    S("dt-1e-12", HEAD + "dt = 1e-12\n", "[script] dt", "1e-05"),
    S("dt-zero", HEAD + "dt = 0.0\n", "[script] dt"),
    S("dt-negative", HEAD + "dt = -0.01\n", "[script] dt"),
    S("dt-too-large", HEAD + "dt = 1.0\n", "[script] dt", "0.05"),
    S("dt-string", HEAD + 'dt = "fast"\n', "[script] dt", "finite number"),
    S("description-number", HEAD + "description = 5\n", "[script] description"),
    # -- [[hold]] ----------------------------------------------------------------------------------
    S("hold-not-tables", "hold = 5\n" + HEAD, "[[hold]]", "array of tables"),
    S("hold-unknown-key", HEAD + HOLD.replace("to = 2.0", "to = 2.0\nuntil = 3.0"), "[[hold]] #1", "`until`"),
    S("hold-missing-keys", HEAD + "[[hold]]\nfrom = 0.0\nto = 1.0\n", "[[hold]] #1", "`keys` is missing"),
    S("hold-missing-from", HEAD + '[[hold]]\nkeys = ["brake"]\nto = 1.0\n', "[[hold]] #1", "`from` is missing"),
    S("hold-missing-to", HEAD + '[[hold]]\nkeys = ["brake"]\nfrom = 0.0\n', "[[hold]] #1", "`to` is missing"),
    S("hold-keys-empty", HEAD + HOLD.replace('["throttle"]', "[]"), "[[hold]] #1", "non-empty list"),
    S("hold-keys-string", HEAD + HOLD.replace('["throttle"]', '"throttle"'), "[[hold]] #1", "non-empty list"),
    S("hold-unknown-key-name", HEAD + HOLD.replace("throttle", "nitro"), "[[hold]] #1", "'nitro'"),
    S("hold-key-number", HEAD + HOLD.replace('["throttle"]', "[1]"), "[[hold]] #1", "unknown key 1"),
    S("hold-to-before-from", HEAD + HOLD.replace("to = 2.0", "to = 0.0").replace("from = 0.0", "from = 1.0"),
      "[[hold]] #1", "not after"),
    S("hold-from-negative", HEAD + HOLD.replace("from = 0.0", "from = -1.0"), "[[hold]] #1", "before the start"),
    S("hold-to-past-end", HEAD + HOLD.replace("to = 2.0", "to = 9.0"), "[[hold]] #1", "past the script"),
    S("hold-from-at-end", HEAD + HOLD.replace("from = 0.0", "from = 4.0").replace("to = 2.0", "to = 4.0"),
      "[[hold]] #1", "is the script's end"),
    S("hold-from-string", HEAD + HOLD.replace("from = 0.0", 'from = "0"'), "[[hold]] #1", "finite number"),
    S("hold-shorter-than-a-frame", HEAD + HOLD.replace("to = 2.0", "to = 0.001"), "[[hold]] #1", "covers no frame"),
    S("hold-gear-key-no-gearbox", head(preset='"parking"') + '[[hold]]\nkeys = ["gear_up"]\nfrom = 0.0\nto = 1.0\n',
      "[[hold]] #1", "'gear_up'", "no gearbox"),
    # -- [[set]] -----------------------------------------------------------------------------------
    S("set-missing-at", HEAD + "[[set]]\ngear = 2\n", "[[set]] #1", "`at` is missing"),
    S("set-nothing", HEAD + "[[set]]\nat = 1.0\n", "[[set]] #1", "sets nothing"),
    S("set-unknown-key", HEAD + "[[set]]\nat = 1.0\nturbo = 1\n", "[[set]] #1", "`turbo`"),
    S("set-at-past-end", HEAD + "[[set]]\nat = 9.0\ngear = 2\n", "[[set]] #1", "past the script"),
    S("set-gear-float", HEAD + "[[set]]\nat = 1.0\ngear = 2.5\n", "[[set]] #1", "whole number"),
    S("set-gear-bool", HEAD + "[[set]]\nat = 1.0\ngear = true\n", "[[set]] #1", "whole number"),
    S("set-gear-too-high", HEAD + "[[set]]\nat = 1.0\ngear = 9\n", "[[set]] #1", "out of range"),
    S("set-gear-too-low", HEAD + "[[set]]\nat = 1.0\ngear = -2\n", "[[set]] #1", "out of range"),
    S("set-gear-no-gearbox", head(preset='"teaching"') + "[[set]]\nat = 1.0\ngear = 2\n", "[[set]] #1", "no gearbox"),
    S("set-steer-out-of-range", HEAD + "[[set]]\nat = 1.0\nsteer = 2.0\n", "[[set]] #1", "`steer`"),
    S("set-pedal-negative", HEAD + "[[set]]\nat = 1.0\nthrottle_pedal = -1.0\n", "[[set]] #1", "throttle_pedal"),
    S("set-pedal-nan", HEAD + "[[set]]\nat = 1.0\nbrake_pedal = nan\n", "[[set]] #1", "finite number"),
    S("set-release-unknown", HEAD + '[[set]]\nat = 1.0\nrelease = ["wheel"]\n', "[[set]] #1", "`release`"),
    S("set-release-not-list", HEAD + '[[set]]\nat = 1.0\nrelease = "steer"\n', "[[set]] #1", "`release`"),
    S("set-and-release", HEAD + '[[set]]\nat = 1.0\nsteer = 0.5\nrelease = ["steer"]\n', "[[set]] #1",
      "both set and released"),
    S("set-params-not-table", HEAD + "[[set]]\nat = 1.0\nparams = 5\n", "[[set]] #1", "`params`"),
    S("set-params-unquoted", HEAD + "[[set]]\nat = 1.0\nparams = { engine.peak_torque = 400.0 }\n", "[[set]] #1",
      "quote the dotted name"),
    S("set-params-unknown", HEAD + '[[set]]\nat = 1.0\nparams = { "engine.turbo" = 1.0 }\n', "[[set]] #1",
      "engine.turbo"),
    S("set-params-huge", HEAD + '[[set]]\nat = 1.0\nparams = { "engine.peak_torque" = 1e308 }\n', "[[set]] #1",
      "engine.peak_torque", "out of range"),
    S("set-params-tiny-mass", HEAD + '[[set]]\nat = 1.0\nparams = { "body.mass" = 1e-300 }\n', "[[set]] #1",
      "body.mass", "out of range"),
    S("set-params-wrong-type", HEAD + '[[set]]\nat = 1.0\nparams = { "body.mass" = "heavy" }\n', "[[set]] #1",
      "body.mass", "expected a number"),
    S("set-params-no-dot", HEAD + '[[set]]\nat = 1.0\nparams = { "mass" = 1000.0 }\n', "[[set]] #1", "mass"),
    S("set-params-change-kind", HEAD + '[[set]]\nat = 1.0\nparams = { "model.kind" = "kinematic" }\n',
      "[[set]] #1", "params"),
    # -- [[expect]] --------------------------------------------------------------------------------
    S("expect-missing-channel", HEAD + "[[expect]]\nat = 1.0\nmin = 0.0\n", "[[expect]] #1", "`channel` is missing"),
    S("expect-unknown-channel", HEAD + EXPECT.replace('"speed"', '"velocity"'), "[[expect]] #1", "'velocity'"),
    S("expect-channel-number", HEAD + EXPECT.replace('"speed"', "7"), "[[expect]] #1", "channel"),
    S("expect-no-bound", HEAD + '[[expect]]\nchannel = "speed"\nat = 1.0\n', "[[expect]] #1", "needs `min`, `max`"),
    S("expect-max-below-min", HEAD + EXPECT + "max = -1.0\n", "[[expect]] #1", "below `min`"),
    S("expect-at-and-window", HEAD + EXPECT + "from = 1.0\nto = 2.0\n", "[[expect]] #1", "not both"),
    S("expect-from-without-to", HEAD + '[[expect]]\nchannel = "speed"\nfrom = 1.0\nmin = 0.0\n', "[[expect]] #1",
      "both `from` and `to`"),
    S("expect-to-before-from", HEAD + '[[expect]]\nchannel = "speed"\nfrom = 2.0\nto = 1.0\nmin = 0.0\n',
      "[[expect]] #1", "not after"),
    S("expect-min-string", HEAD + EXPECT.replace("min = 0.0", 'min = "0"'), "[[expect]] #1", "finite number"),
    S("expect-min-inf", HEAD + EXPECT.replace("min = 0.0", "min = -inf"), "[[expect]] #1", "finite number"),
    S("expect-at-past-end", HEAD + EXPECT.replace("at = 3.0", "at = 5.0"), "[[expect]] #1", "past the script"),
    S("expect-window-no-frame", HEAD + '[[expect]]\nchannel = "speed"\nfrom = 1.001\nto = 1.005\nmin = 0.0\n',
      "[[expect]] #1", "covers no frame"),
    S("expect-name-empty", HEAD + EXPECT + 'name = ""\n', "[[expect]] #1", "name"),
    S("expect-unknown-key", HEAD + EXPECT + "within = 1\n", "[[expect]] #1", "`within`"),
    S("expect-rpm-no-engine", head(preset='"classic"') + EXPECT.replace('"speed"', '"rpm"'), "[[expect]] #1",
      "'rpm'", "no engine"),
    # (not its gear: -1 or 1 on a car with a direct drive force, its way)
    S("expect-clutch-no-engine", head(preset='"teaching"') + EXPECT.replace('"speed"', '"clutch"'), "[[expect]] #1",
      "'clutch'", "no engine"),
    S("expect-slip-kinematic", head(preset='"teaching"') + EXPECT.replace('"speed"', '"slip_front"'),
      "[[expect]] #1", "'slip_front'", "kinematic"),
    S("expect-kmh-on-px-car", head(preset='"parking"') + EXPECT.replace('"speed"', '"speed_kmh"'),
      "[[expect]] #1", "'speed_kmh'", "measures lengths in px", "'speed'"),
    S("script-preset-unknown", head(preset='"nosuch"'), "[script] preset", "nosuch", "looked up among the shipped presets"),
    S("script-preset-missing-file", head(preset='"cars/none.toml"'), "[script] preset", "no such preset file"),
    # -- what the script file is -------------------------------------------------------------------
    Case("script-missing", ["missing.toml", "no such script file"], script=None, argv=["replay", "missing.toml"]),
    Case("script-name-misspelt", ["braking_stopp", "no such script file", "braking_stop"], script=None,
         argv=["replay", "braking_stopp"]),
    Case("script-dev-zero", ["/dev/zero", "is a device"], script=None, argv=["replay", "/dev/zero"]),
    Case("script-dev-null", ["/dev/null", "is a device"], script=None, argv=["replay", "/dev/null"]),
    Case("script-fifo", ["fifo.toml", "is a FIFO"], script=None, argv=["replay", "fifo.toml"], setup="fifo"),
    Case("script-directory", ["dir.toml", "is a directory"], script=None, argv=["replay", "dir.toml"], setup="dir"),
    Case("script-socket", ["sock.toml", "is a socket"], script=None, argv=["replay", "sock.toml"], setup="socket"),
    Case("script-too-big", ["big.toml", "larger than a script file may be", "16 MiB"], script=None,
         argv=["replay", "big.toml"], setup="big"),
    Case("script-link-to-device", ["link.toml", "is a device"], script=None, argv=["replay", "link.toml"],
         setup="link"),
    Case("script-dangling-link", ["dangling.toml", "no such script file"], script=None,
         argv=["replay", "dangling.toml"], setup="dangling"),
    Case("second-script-bad", ["s.toml", "[[hold]] #1"], script=HEAD + HOLD.replace("throttle", "nitro"),
         argv=["replay", CLUTCH, "s.toml"]),
    # -- the --preset file ------------------------------------------------------------------------
    Case("preset-unknown-name", ["--preset", "nosuch", "looked up among the shipped presets"], args=["--preset", "nosuch"]),
    Case("preset-empty-name", ["--preset", "empty preset name"], args=["--preset", ""]),
    Case("preset-directory", ["--preset", "dir.toml", "is a directory"], args=["--preset", "dir.toml"], setup="dir"),
    Case("preset-dev-zero", ["--preset", "/dev/zero", "is a device", "not a regular file"], args=["--preset", "/dev/zero"]),
    Case("preset-fifo", ["--preset", "fifo.toml", "not a regular file"], args=["--preset", "fifo.toml"],
         setup="fifo"),
    Case("preset-missing-file", ["--preset", "none.toml", "no such preset file"], args=["--preset", "none.toml"]),
    Case("preset-too-big", ["bigpreset.toml", "larger than a preset file may be"],
         args=["--preset", "bigpreset.toml"], setup="bigpreset"),
    P("preset-bad-toml", "[body\n", "not valid TOML"),
    P("preset-not-utf8", b"\x80\x81 not text", "not UTF-8"),
    P("preset-empty", "", "missing group"),
    P("preset-unknown-group", SEDAN + "[turbo]\nboost = 1.0\n", "[turbo]", "unknown group"),
    P("a-script", SEDAN + "[script]\nname = \"x\"\n", "a script", "not a car's parameters", "Load script"),
    P("preset-unknown-key", SEDAN.replace("[body]\n", "[body]\nbogus = 1.0\n"), "body.bogus", "unknown key"),
    P("preset-mass-1e308", sedan_with("mass", "1e308"), "body.mass", "out of range", "<= 1e+06"),
    P("preset-wheel-radius-1e-300", sedan_with("wheel_radius", "1e-300"), "body.wheel_radius", "out of range"),
    P("preset-peak-torque-1e308", sedan_with("peak_torque", "1e308"), "engine.peak_torque", "out of range"),
    P("preset-negative-mass", sedan_with("mass", "-5.0"), "body.mass", "out of range"),
    P("preset-mass-string", sedan_with("mass", '"heavy"'), "body.mass", "expected a number"),
    P("preset-mass-nan", sedan_with("mass", "nan"), "body.mass", "finite"),
    P("preset-lock-90deg", sedan_with("lock", "1.5708"), "steering.lock", "<= 1.39626 rad"),
    P("preset-lr-past-wheelbase", sedan_with("lr", "3.0"), "lr", "wheelbase"),
    P("preset-missing-group", SEDAN[:SEDAN.index("[aero]")] + SEDAN[SEDAN.index("[brakes]"):], "[aero]", "missing"),
    P("preset-kinematic-key-on-dynamic", SEDAN.replace("[model]\n", '[model]\nreference = "com"\n'),
      "model.reference", "kinematic"),
    P("preset-bad-choice", SEDAN.replace('unit = "m"', 'unit = "furlong"'), "model.unit", "'furlong'"),
    P("preset-yaw-inertia-huge", sedan_with("yaw_inertia", "1e300"), "body.yaw_inertia", "out of range"),
    # -- options --------------------------------------------------------------------------------------
    Case("dt-option-1e-12", ["--dt", "1e-05"], args=["--dt", "1e-12"]),
    Case("dt-option-1e-7", ["--dt", "1e-05"], args=["--dt", "1e-7"]),
    Case("dt-option-zero", ["--dt", "[1e-05, 0.05]"], args=["--dt", "0"]),
    Case("dt-option-negative", ["--dt", "[1e-05, 0.05]"], args=["--dt=-1"]),
    Case("dt-option-nan", ["--dt", "invalid number value: 'nan'"], args=["--dt", "nan"]),
    Case("dt-option-inf", ["--dt", "invalid number value: 'inf'"], args=["--dt", "inf"]),
    Case("dt-option-too-large", ["--dt", "0.05"], args=["--dt", "1.0"]),
    Case("dt-option-not-number", ["--dt", "'abc'"], args=["--dt", "abc"]),
    Case("max-memory-zero", ["--max-memory", "positive"], args=["--max-memory", "0"]),
    Case("max-memory-unit", ["--max-memory", "unknown unit"], args=["--max-memory", "1X"]),
    Case("max-memory-words", ["--max-memory", "'lots'"], args=["--max-memory", "lots"]),
    Case("max-memory-too-small", ["s.toml", "481 frames", "memory budget of 1 KiB"], args=["--max-memory", "1K"]),
    Case("csv-empty", ["--csv", "empty"], args=["--csv", ""]),
    Case("csv-directory", ["--csv", "dir.toml", "is a directory"], args=["--csv", "dir.toml"], setup="dir"),
    Case("csv-missing-folder", ["--csv", "no/such/dir", "does not exist"], args=["--csv", "no/such/dir/x.csv"]),
    Case("csv-is-the-script", ["--csv", "s.toml", "one of the inputs"], args=["--csv", "s.toml"]),
    Case("csv-is-the-script-by-another-name", ["--csv", "one of the inputs"], args=["--csv", "./sub/../s.toml"],
         setup="sub"),
    Case("csv-is-the-preset", ["--csv", "car.toml", "one of the inputs"], preset=SEDAN, args=["--csv", "car.toml"]),
    Case("csv-is-a-device", ["--csv", "/dev/null", "not a regular file"], args=["--csv", "/dev/null"]),
    Case("csv-is-a-fifo", ["--csv", "fifo.toml", "not a regular file"], args=["--csv", "fifo.toml"], setup="fifo"),
    Case("json-with-bad-script", ["s.toml", "[[hold]] #1"], script=HEAD + HOLD.replace("throttle", "nitro"),
         args=["--json"]),
    Case("json-with-bad-csv", ["--csv", "does not exist"], args=["--json", "--csv", "nope/x.csv"]),
    Case("px-preset-for-a-kmh-script", ["clutch_coast.toml", "[[expect]] #1", "measures lengths in px"],
         script=None, argv=["replay", CLUTCH, "--preset", "parking"]),
    Case("gear-keys-on-a-car-without-gearbox", ["launch_shift.toml", "'gear_up'", "no gearbox"],
         script=None, argv=["replay", LAUNCH, "--preset", "teaching"]),
    # -- the command line itself ------------------------------------------------------------------
    Case("replay-without-scripts", ["arguments are required", "SCRIPT"], script=None, argv=["replay"]),
    Case("unknown-option", ["unrecognized arguments", "--bogus"], args=["--bogus"]),
    Case("unknown-command", ["invalid choice", "frobnicate"], script=None, argv=["frobnicate"]),
    Case("window-preset-unknown", ["--preset", "nosuch"], script=None, argv=["--preset", "nosuch"]),
    Case("window-preset-directory", ["--preset", "dir.toml", "is a directory"], script=None,
         argv=["--preset", "dir.toml"], setup="dir"),
    Case("window-script-missing", ["--script", "missing.toml", "no such script file"], script=None,
         argv=["--script", "missing.toml"]),
    Case("window-script-bad", ["--script", "s.toml", "[[hold]] #1"], script=HEAD + HOLD.replace("throttle", "x"),
         argv=["--script", "s.toml"]),
    Case("window-script-device", ["--script", "/dev/zero", "is a device"], script=None,
         argv=["--script", "/dev/zero"]),
    # a script drives its own car: refused before the window or, with no display, the demo (which ran, exit 0)
    Case("window-script-on-another-preset", ["--preset sedan", "drives its own car, manual003"], script=None,
         argv=["--script", "clutch_coast", "--preset", "sedan"]),
    # numbers Python will not read (more than 4,300 digits): a traceback before
    S("recorded-version-of-4301-digits", RECORDED.replace("VERSION", "0." + "1" * 4301), "[recorded]",
      "`carbench` is 4,303 characters long; a version has at most 64"),
    # a value next to a limit is quoted as typed, not rounded onto it ("80 deg is out of range; allowed: ... <= 80")
    Case("vs-set-just-past-a-limit", ["steering.lock=80.000001 (deg)", "allowed: 0 < value <= 80 deg"], script=None,
         argv=["compare", CLUTCH, "--vs-set", "steering.lock=80.000001"]),
    Case("sweep-just-past-a-limit", ["steering.lock = 80.000001 deg is out of range"], script=None,
         argv=["sweep", "clutch_coast", "--param", "steering.lock=80.000001,10"]),
    Case("sweep-just-short-of-a-whole-number", ["brakes.abs = 0.9999999999999999 is not a whole number"], script=None,
         argv=["sweep", "split_mu_launch", "--param", "brakes.abs=0.9999999999999999,0"]),
    Case("set-just-below-the-yaw-floor", ["a dynamic index Iz / (m lf lr) of 0.049996, below the 0.05",
                                          "(at least 2901 kg m^2"], script=None,
         argv=["manoeuvre", "iso4138", "--set", "body.mass=28565"]),
    Case("sweep-values-of-4301-digits", ["N = a number of 4,301 digits must be between 2 and"], script=None,
         argv=["sweep", "clutch_coast", "--param", "body.mass=1000:1100:" + "1" * 4301]),
]


def make_special(kind: str, root: Path) -> None:
    if kind == "fifo":
        os.mkfifo(root / "fifo.toml")
    elif kind == "dir":
        (root / "dir.toml").mkdir()
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind("sock.toml")  # relative: the path of tmp folders can exceed a socket name's limit
        sock.close()
    elif kind == "big":
        with open(root / "big.toml", "wb") as f:
            f.truncate(17 * 1024 * 1024)  # sparse: costs no disk
    elif kind == "bigpreset":
        with open(root / "bigpreset.toml", "wb") as f:
            f.truncate(2 * 1024 * 1024)
    elif kind == "link":
        (root / "link.toml").symlink_to("/dev/zero")
    elif kind == "dangling":
        (root / "dangling.toml").symlink_to(root / "gone.toml")
    elif kind == "sub":
        (root / "sub").mkdir()


def test_there_are_at_least_116_cases_and_their_ids_are_unique():
    assert len(CASES) >= 116
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_is_refused_cleanly(case: Case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if case.script is not None:
        data = case.script if isinstance(case.script, bytes) else case.script.encode("utf-8")
        (tmp_path / "s.toml").write_bytes(data)
    extra = []
    if case.preset is not None:
        data = case.preset if isinstance(case.preset, bytes) else case.preset.encode("utf-8")
        (tmp_path / "car.toml").write_bytes(data)
        extra = ["--preset", "car.toml"]
    if case.setup:
        make_special(case.setup, tmp_path)
    argv = case.argv if case.argv is not None else ["replay", "s.toml", *extra, *case.args]
    before = snapshot(tmp_path)
    shipped = snapshot(scripts_dir())

    code, out, err = run(argv, capsys)

    assert code == cli.EXIT_BAD_INPUT, (code, out, err)
    assert out == "", out  # not a table, not JSON, not a progress line
    assert err.startswith("carbench: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in case.needles:
        assert needle in err, (needle, err)
    assert snapshot(tmp_path) == before, "a file was written or changed"
    assert snapshot(scripts_dir()) == shipped
