"""[[measure]] entries: parsed strictly, compiled against the car, reduced in a replay, printed after the verdicts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from workbench.output.report import as_json, table
from workbench.runs.margins import columns_of
from workbench.runs.measures import Tally, measure_column
from workbench.runs.replay import replay
from workbench.scripts.format import Measure, ScriptError, parse_script
from workbench.scripts.program import compile_script

SRC = "cases/measures.toml"
HEAD = """
[script]
name = "case"
preset = "sedan"
duration = 3.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 3.0
"""


def entry(body: str) -> str:
    return HEAD + "\n[[measure]]\n" + body


def refused(text: str, compile_too: bool = False) -> str:
    with pytest.raises(ScriptError) as info:
        script = parse_script(text, SRC)
        if compile_too:
            compile_script(script, dt=0.05 if "dt-coarse" in text else None)
    message = str(info.value)
    assert message.startswith(f"{SRC}: [[measure]] #1"), message
    assert "\n" not in message
    return message


def test_every_form_parses_and_round_trips():
    text = HEAD + """
[[measure]]
name = "top"
channel = "speed_kmh"
from = 0.0
to = 3.0
reduce = "max"

[[measure]]
name = "at two"
channel = "rpm"
at = 2.0

[[measure]]
name = "to 10"
channel = "speed_kmh"
from = 0.0
to = 3.0
first_time_above = 10.0

[[measure]]
name = "below"
channel = "clutch"
from = 0.5
to = 3.0
first_time_below = 0.5
"""
    s = parse_script(text, SRC)
    assert s.measures == (
        Measure("top", "speed_kmh", "max", start=0.0, end=3.0),
        Measure("at two", "rpm", "final", at=2.0),
        Measure("to 10", "speed_kmh", "first_time_above", 10.0, start=0.0, end=3.0),
        Measure("below", "clutch", "first_time_below", 0.5, start=0.5, end=3.0),
    )
    assert parse_script(s.to_toml(), SRC) == s
    assert s.measures[2].how() == "first time above 10, 0..3 s"
    assert s.measures[0].how() == "max over 0..3 s"


@pytest.mark.parametrize(("body", "reason"), [
    ('channel = "speed"\nat = 1.0\n', "`name` is missing"),
    ('name = "a"\nat = 1.0\n', "`channel` is missing"),
    ('name = "a"\nchannel = "sped"\nat = 1.0\n', "unknown channel 'sped'; the channels are: t, x"),
    ('name = "a"\nchannel = "speed"\nat = 1.0\nreduce = "median"\n', "`reduce` = 'median' is not a reducer"),
    ('name = "a"\nchannel = "speed"\nat = 1.0\nreduce = "first_time_above"\n', "write first_time_above = VALUE"),
    ('name = "a"\nchannel = "speed"\nfrom = 0.0\nto = 1.0\nreduce = "max"\nfirst_time_above = 1.0\n',
     "give one reduction"),
    ('name = "a"\nchannel = "speed"\nfrom = 0.0\nto = 1.0\nfirst_time_below = "x"\n', "expected a finite number"),
    ('name = "a"\nchannel = "speed"\nfrom = 1.0\nto = 1.0\nreduce = "max"\n', "the window is empty"),
    ('name = "a"\nchannel = "speed"\nfrom = 2.0\nto = 1.0\nreduce = "max"\n', "is not after `from`"),
    ('name = "a"\nchannel = "speed"\nfrom = 0.0\nto = 9.0\nreduce = "max"\n', "past the script's duration"),
    ('name = "a"\nchannel = "speed"\nfrom = 0.0\nreduce = "max"\n', "needs `at` (one frame) or both"),
    ('name = "a"\nchannel = "speed"\nat = 1.0\nfrom = 0.0\nto = 1.0\n', "either `at`"),
    ('name = "a"\nchannel = "speed"\nfrom = 0.0\nto = 1.0\n', "a window needs a reduction"),
    ('name = "a"\nchannel = "speed"\nat = 1.0\nunit = "km/h"\n', "unknown key `unit`"),
    ('name = ""\nchannel = "speed"\nat = 1.0\n', "expected a non-empty string"),
])
def test_bad_measures_are_refused_naming_the_entry(body, reason):
    assert reason in refused(entry(body))


def test_a_repeated_name_is_refused():
    text = HEAD + '[[measure]]\nname = "a"\nchannel = "speed"\nat = 1.0\n' * 2
    with pytest.raises(ScriptError, match=r"\[\[measure\]\] #2: name 'a' is already used by \[\[measure\]\] #1"):
        parse_script(text, SRC)


def test_a_window_with_no_frame_at_the_dt_is_refused_when_compiled():
    body = 'name = "a"\nchannel = "speed"\nfrom = 1.01\nto = 1.04\nreduce = "max"\n# dt-coarse\n'
    assert "covers no frame at dt = 0.05 s" in refused(entry(body), compile_too=True)


def test_a_channel_the_car_lacks_is_refused_when_compiled():
    text = entry('name = "a"\nchannel = "speed_kmh"\nat = 1.0\n').replace('preset = "sedan"', 'preset = "parking"')
    assert "unknown channel 'speed_kmh'" in refused(text, compile_too=True)


MEASURED = HEAD + """
[[expect]]
channel = "speed_kmh"
at = 3.0
min = 1.0

[[measure]]
name = "top"
channel = "speed_kmh"
from = 0.0
to = 3.0
reduce = "max"

[[measure]]
name = "mean rpm"
channel = "rpm"
from = 0.5
to = 2.5
reduce = "mean"

[[measure]]
name = "to 5 km/h"
channel = "speed_kmh"
from = 0.0
to = 3.0
first_time_above = 5.0

[[measure]]
name = "never"
channel = "speed_kmh"
from = 0.0
to = 3.0
first_time_above = 500.0

[[measure]]
name = "lowest clutch"
channel = "clutch"
from = 0.0
to = 3.0
reduce = "min"

[[measure]]
name = "end"
channel = "speed_kmh"
at = 3.0
"""


@pytest.fixture(scope="module")
def measured():
    (result,) = replay([compile_script(parse_script(MEASURED, SRC))])
    return result


def test_replay_reduces_each_measure_from_the_channel(measured):
    speed, rpm, clutch = (measured.column(c) for c in ("speed_kmh", "rpm", "clutch"))
    values = {m.measure.name: m.value for m in measured.measurements}
    dt = measured.program.dt
    assert values["top"] == speed[:360].max()  # [from, to): frame 360 (t = 3 s) is outside
    assert values["mean rpm"] == pytest.approx(rpm[60:300].mean(), rel=1e-12)
    first = int(np.flatnonzero(speed >= 5.0)[0])
    assert values["to 5 km/h"] == first * dt and speed[first - 1] < 5.0
    assert values["never"] is None
    assert values["lowest clutch"] == clutch[:360].min()
    assert values["end"] == speed[360]
    units = {m.measure.name: m.unit for m in measured.measurements}
    assert units["to 5 km/h"] == "s" and units["top"] == "km/h" and units["mean rpm"] == "rpm"


def test_the_table_prints_measures_after_the_verdicts(measured):
    lines = table([measured]).splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.strip().startswith("PASS"))
    header = lines.index("  measures:")
    assert header > verdict
    rows = {line.split()[0]: line for line in lines[header + 1:] if line.startswith("    ")}
    assert "never" in rows["never"].split()[-1]
    assert rows["top"].endswith("km/h")


def test_the_json_carries_every_measure(measured):
    doc = json.loads(json.dumps(as_json([measured])))
    measures = {m["name"]: m for m in doc["scripts"][0]["measures"]}
    assert measures["never"]["value"] is None
    assert measures["to 5 km/h"]["unit"] == "s" and measures["to 5 km/h"]["threshold"] == 5.0
    assert measures["top"]["frames"] == [0, 359]


def test_the_running_tally_agrees_with_the_column_to_the_bit(measured):
    program = measured.program
    tally = Tally(program, 1)
    for k in range(program.frames):
        frame = {name: np.array([v]) for name, v in measured.log.frame(k, measured.car).items()}
        tally.update(k, type("Frame", (), frame))
    for i, m in enumerate(measured.measurements):
        first, last = program.measure_windows[i]
        expected = measure_column(m.measure, measured.column(m.measure.channel), first, last, program.dt)
        got = tally.measure_value[i, 0]
        assert (math.isnan(got) and math.isnan(expected)) or got == expected, m.measure.name
    v = measured.verdicts[0]
    assert tally.expect_value[0, 0] == v.measured and tally.expect_passed[0, 0] == v.passed


BLOCKS = """
[script]
name = "blocks"
preset = "sedan"
duration = 2.0

[[expect]]
channel = "speed"
from = 0.1
to = 1.3
min = 0.5

[[expect]]
channel = "yaw_rate"
at = 0.5
max = 0.25

[[expect]]
channel = "speed"
from = 0.0
to = 2.0
min = 0.0
max = 1.0
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_block_of_frames_tallies_to_the_bits_of_frame_by_frame(seed):
    """The sweep tallies a block of frames at once: every reduce, windows cut by the blocks anywhere, ties (the first
    frame of least margin decides) and crossings, against frame by frame."""
    text = BLOCKS
    for reduce in ("min", "max", "mean", "final"):
        text += f'\n[[measure]]\nname = "{reduce}"\nchannel = "speed"\nfrom = 0.2\nto = 1.7\nreduce = "{reduce}"\n'
    for how, level in (("first_time_above", 0.6), ("first_time_below", 0.1)):
        text += f'\n[[measure]]\nname = "{how}"\nchannel = "yaw_rate"\nfrom = 0.05\nto = 1.9\n{how} = {level}\n'
    program = compile_script(parse_script(text, "blocks.toml"), dt=0.01)
    rng = np.random.default_rng(seed)
    frames, n = program.frames, 40
    names = ("speed", "yaw_rate")
    data = np.round(rng.random((frames, n, 2)), 1)  # coarse values: many ties
    data[:, :5, 1] = 0.3  # some cars never cross either threshold
    data[rng.integers(0, frames, 30), rng.integers(0, n, 30), 0] = np.nan  # frames with no value: passed over
    data[rng.integers(0, frames, 10), rng.integers(5, n, 10), 0] = np.inf
    one, block = Tally(program, n), Tally(program, n)
    with np.errstate(invalid="ignore"):  # inf's margin to a bound on both sides is inf - inf: NaN, passed over
        for k in range(frames):
            one.update(k, type("Frame", (), {name: data[k, :, j] for j, name in enumerate(names)}))
        k = 0
        while k < frames:
            size = int(rng.integers(1, 40))
            block.update_block(k, data[k:k + size], {name: j for j, name in enumerate(names)})
            k += size
    for name in ("expect_value", "expect_margin", "expect_frame", "measure_value"):
        a, b = getattr(one, name), getattr(block, name)
        assert np.array_equal(a, b, equal_nan=True), name
    assert np.isnan(block.measure_value[-2:, :5]).all()  # never crossed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_compiled_tally_of_ranges_of_cars_has_the_bits_of_the_block_tally(seed):
    """A sweep's threads tally the expectations of the cars each stepped (Tally.update_cars, compiled): ranges of cars
    in any order, blocks cut anywhere, ties, NaN and inf frames, a bound on one side or both, against numpy's
    update_block. Values of both signs of zero, and margins whose two sides tie."""
    program = compile_script(parse_script(BLOCKS, "blocks.toml"), dt=0.01)
    rng = np.random.default_rng(seed)
    frames, n = program.frames, 50
    names = ("yaw_rate", "speed")  # the block's columns in another order than the expectations name them
    data = np.round(rng.random((frames, n, 2)), 1) - 0.2  # coarse values: many ties; both bounds reached
    data[rng.integers(0, frames, 40), rng.integers(0, n, 40), 1] = np.nan
    data[rng.integers(0, frames, 10), rng.integers(0, n, 10), 1] = np.inf
    data[rng.integers(0, frames, 10), rng.integers(0, n, 10), 1] = -np.inf
    data[rng.integers(0, frames, 20), rng.integers(0, n, 20), 0] = -0.0
    data[rng.integers(0, frames, 20), rng.integers(0, n, 20), 1] = 0.5  # the third expectation's bounds tie there
    index = {name: j for j, name in enumerate(names)}
    numpy_way, compiled = Tally(program, n), Tally(program, n)
    columns = columns_of(compiled.expects, index)
    assert list(columns) == [1, 0, 1]
    with np.errstate(invalid="ignore"):
        k = 0
        while k < frames:
            size = int(rng.integers(1, 40))
            numpy_way.update_block(k, data[k:k + size], index)
            cuts = sorted({0, n, *rng.integers(1, n, 3).tolist()})
            ranges = list(zip(cuts[:-1], cuts[1:], strict=True))
            for lo, hi in rng.permutation(ranges):
                compiled.update_cars(k, data[k:k + size], columns, int(lo), int(hi))
            compiled.update_measures(k, data[k:k + size], index)
            k += size
    for name in ("expect_value", "expect_margin", "expect_frame", "measure_value"):
        a, b = getattr(numpy_way, name), getattr(compiled, name)
        assert np.array_equal(a, b, equal_nan=True), name
        assert a.tobytes() == b.tobytes(), name  # to the bit: the sign of a zero too
    assert np.isinf(compiled.expect_margin).any() or (compiled.expect_margin < 0).any()


def test_a_range_of_cars_tallies_only_its_own_cars():
    program = compile_script(parse_script(BLOCKS, "blocks.toml"), dt=0.01)
    tally = Tally(program, 6)
    data = np.full((program.frames, 6, 2), 0.7)
    tally.update_cars(0, data, columns_of(tally.expects, {"speed": 0, "yaw_rate": 1}), 2, 4)
    assert np.isinf(tally.expect_margin[:, [0, 1, 4, 5]]).all()
    assert np.isfinite(tally.expect_margin[:, 2:4]).all()


def test_a_scripts_own_words_are_printed_as_one_line_each():
    """A tab, a newline or a terminal's escape in a script's name, an expectation's label or a measure's name is shown
    escaped in the verdict table and a sweep's summary, not acted on by the terminal."""
    from workbench.output.sweep_report import summary
    from workbench.runs.sweep import plan_sweep, run_sweep

    text = HEAD.replace('name = "case"', 'name = "a\\tb\\u001b[31mred"') + (
        '\n[[expect]]\nname = "x\\ny"\nchannel = "speed"\nat = 1.0\nmin = -1.0\n'
        '\n[[measure]]\nname = "m\\rn"\nchannel = "speed"\nat = 1.0\n')
    program = compile_script(parse_script(text, SRC))
    printed = table(replay([program])) + "\n" + summary(run_sweep(plan_sweep(program, ["body.mass=900:1800:2"])))
    assert "a\\tb\\x1b[31mred" in printed and "x\\ny" in printed and "m\\rn" in printed
    assert not any(c in printed for c in "\t\r\x1b")
    assert not any(line.startswith(("y", "n")) for line in printed.split("\n"))  # no label broken over two lines
