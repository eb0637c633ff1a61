"""Comparing runs headless: ``carbench compare``, run stamps and their round trip through a recording."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from physics import channel_names, load_preset
from physics.presets import scripts_dir
from physics.telemetry import channels_of
from workbench.cli import main
from workbench.output.telemetry_log import split_header_cell
from workbench.runs.compare import CompareError, compare, read_csv_run, run_of
from workbench.runs.live import LiveSession
from workbench.runs.replay import replay
from workbench.runs.stamp import make_stamp, params_sha256, program_stamp
from workbench.scripts.format import ScriptError, load_script, parse_script
from workbench.scripts.program import compile_script

LAUNCH = str(scripts_dir() / "launch_shift.toml")
COAST = str(scripts_dir() / "clutch_coast.toml")
PARKING = str(scripts_dir() / "parking_full_lock.toml")


def cli(capsys, *args) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse refuses the arguments (exit 2, one line)
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# -- the command ---------------------------------------------------------------------------------

def test_a_script_compared_with_itself_agrees(capsys):
    code, out, err = cli(capsys, "compare", COAST, "--vs-preset", "manual003", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["agree"] and report["divergence"] is None and report["params"] == [] and report["channels"] == []
    assert all(not e["flipped"] and e["a"]["passed"] == e["b"]["passed"] for e in report["expectations"])
    assert err == ""


def test_channels_one_car_does_not_have_are_left_out_and_named(capsys, tmp_path):
    """The four-wheel sedan against its single-track twin: the corners, roll and stability control's channels read a
    constant 0 on the single-track car, and compared they made a divergence at frame 0 (load_fl 3924 -> 0 N) in a run
    whose motion had not moved. They are not compared, and the text, the JSON and the CSV say which."""
    out_csv = tmp_path / "c.csv"
    code, out, err = cli(capsys, "compare", "accel_80_120", "--vs-preset", "sedan_single_track", "--json", "--csv",
                         out_csv)
    assert code == 1, err
    report = json.loads(out)
    four, single = ({i.name for i in channels_of(load_preset(name).params)} for name in ("sedan", "sedan_single_track"))
    assert set(report["left_out"]) == four - single and {"load_fl", "esc_active", "roll"} <= set(report["left_out"])
    compared = {row["channel"] for row in report["channels"]} | {row["channel"] for row in
                                                                  report["divergence"]["channels"]}
    assert compared and not compared & set(report["left_out"])
    assert report["divergence"]["time"] > 0.0
    header = out_csv.read_text().splitlines()[0]
    assert "load_fl.a" not in header and "speed_kmh.a" in header
    code, out, err = cli(capsys, "compare", "accel_80_120", "--vs-preset", "sedan_single_track")
    assert f"not compared: {len(four - single)} channels one of the runs does not have (" in out


def test_vs_set_mass_lists_that_parameter_and_diverges_where_mass_first_acts(capsys):
    code, out, err = cli(capsys, "compare", LAUNCH, "--vs-set", "body.mass=1400", "--json")
    assert code == 1, err
    report = json.loads(out)
    sedan = load_preset("manual003").params  # the preset launch_shift.toml is about
    assert report["params"] == [{"path": "body.mass", "a": sedan.body.mass, "b": 1400.0, "unit": "kg"}]
    # The car starts at rest and the telemetry of a frame is the state at its start: position and
    # speed cannot differ on frame 0. The drivetrain cannot either: the engine idles at 1,000 rpm and
    # the automatic clutch, (rpm - 1000) / 1000, is fully open, so no force reaches the road on
    # frame 0 whatever the mass. The static axle loads, m g lr / L and m g lf / L, are the only
    # channels mass reaches at once: frame 0 is where mass acts, through exactly those two.
    d = report["divergence"]
    assert d["frame"] == 0 and d["time"] == 0.0
    assert {c["channel"] for c in d["channels"]} == {"load_front", "load_rear"}
    body, g = sedan.body, 9.81
    loads = {c["channel"]: c for c in d["channels"]}
    for name, share in (("load_front", body.lr / body.wheelbase), ("load_rear", 1 - body.lr / body.wheelbase)):
        assert loads[name]["a"] == pytest.approx(body.mass * g * share, rel=1e-3)
        assert loads[name]["b"] == pytest.approx(1400.0 * g * share, rel=1e-3)
    # and the speed differs later, once the clutch bites
    speed = next(c for c in report["channels"] if c["channel"] == "speed_kmh")
    assert speed["frame"] > 0


def test_vs_dt_at_a_quarter_is_compared_on_the_coarse_frame_times():
    script = load_script(LAUNCH)
    a = compile_script(script)
    b = compile_script(script, dt=a.dt / 4)
    ra, rb = replay([a, b])
    result = compare(run_of(ra), run_of(rb))
    assert len(result.t) == a.frames and np.array_equal(result.t, ra.column("t"))
    assert "A's frame times" in result.grid and "interpolated" in result.grid
    # every 4th frame of the fine run falls on a coarse frame time: there it is B's own value
    fine = rb.column("speed_kmh")
    assert np.allclose(result.b_values["speed_kmh"], fine[::4][:a.frames], rtol=0, atol=1e-9)
    assert np.array_equal(result.a_values["speed_kmh"], ra.column("speed_kmh"))
    # the verdicts side by side, each the run's own, flips marked where the two disagree
    assert [r.label for r in result.verdicts] == [e.label() for e in script.expects]
    for row, va, vb in zip(result.verdicts, ra.verdicts, rb.verdicts, strict=True):
        assert row.a.passed == va.passed and row.b.passed == vb.passed
        assert row.flipped == (va.passed != vb.passed)
    # the report says how far apart the two timesteps are, per channel, on aligned times
    speed = next(r for r in result.channels if r.name == "speed_kmh")
    j = int(np.argmax(np.abs(result.b_values["speed_kmh"] - result.a_values["speed_kmh"])))
    assert speed.frame == j and speed.time == pytest.approx(j * a.dt)
    assert 0 < abs(speed.delta) < 5.0  # km/h: the same physics at a finer step, not another car
    assert not result.agree


def test_vs_dt_from_the_command_line(capsys):
    code, out, _ = cli(capsys, "compare", LAUNCH, "--vs-dt", 1 / 480)
    assert code == 1
    assert "A's frame times" in out and "first divergence" in out


def test_runs_of_two_dts_give_the_frames_of_the_run_compared_on(capsys):
    """`compare clutch_coast --vs-dt 0.01`: compared on B's frame times (801 frames), yet it gave A's frame numbers
    beside those times ("at 2.5900 s (frame 311)": A's frame 311 is at 2.5917 s, B's frame at 2.59 s is 259). The
    frames are the compared run's, and say whose; in the window, a divergence is shown at the run on show's frame."""
    code, out, _ = cli(capsys, "compare", COAST, "--vs-dt", "0.01", "--json")
    report = json.loads(out)
    assert code == 1 and report["frames_of"] == "B" and report["b"]["dt"] == 0.01
    rows = report["channels"] + report["divergence"]["channels"]
    assert rows and all(r["time"] == pytest.approx(r["frame"] * 0.01, abs=1e-12) for r in rows)
    assert all(r["frame"] <= report["frames"] - 1 for r in rows)
    code, out, _ = cli(capsys, "compare", COAST, "--vs-dt", "0.01")
    assert "first divergence: B's frame " in out and "(B's frame " in out
    same = json.loads(cli(capsys, "compare", COAST, "--vs-set", "body.mass=1400", "--json")[1])
    assert same["frames_of"] == "both"
    script = load_script(COAST)
    a = compile_script(script)
    ra, rb = replay([a, compile_script(script, dt=a.dt / 4)])
    result = compare(run_of(rb), run_of(ra))  # the finer run as A: the frames compared are B's, the coarse one's
    d = result.divergence
    assert result.frames_of == "B" and d.time == pytest.approx(d.frame * a.dt)
    assert result.frame_in("A", d.time) == 4 * d.frame and result.frame_in("B", d.time) == d.frame


def test_a_difference_that_is_zero_shows_no_sign():
    """`compare reverse_bay --vs-set steering.lock=35` printed "yaw_rate ... -0 -> -2.22253"."""
    from workbench.runs.compare import ChannelRow, Comparison

    program = compile_script(load_script(COAST))
    (result,) = replay([program])
    run = run_of(result)
    comparison = compare(run, run)
    comparison.channels = [ChannelRow("yaw_rate", "deg/s", -2.5, 3, 0.025, -0.0, -2.5)]
    assert "-0 ->" not in comparison.text() and "0 -> -2.5" in comparison.text()
    assert isinstance(comparison, Comparison)


def test_tolerance_is_adjustable(capsys):
    script = load_script(COAST)
    a = compile_script(script)
    b = compile_script(script, dt=a.dt / 2)
    ra, rb = replay([a, b])
    loose = compare(run_of(ra), run_of(rb), atol=1e9, rtol=0.0)
    assert loose.divergence is None
    strict = compare(run_of(ra), run_of(rb))
    assert strict.divergence is not None


@pytest.mark.parametrize("args, needle", [
    (["compare", LAUNCH, "--vs-set", "body.nosuch=1"], "body.nosuch"),
    (["compare", LAUNCH, "--vs-set", "body.mass=heavy"], "body.mass"),
    (["compare", LAUNCH, "--vs-set", "body.mass=-5"], "body.mass"),
    (["compare", LAUNCH, "--vs-set", "mass"], "PATH=VALUE"),
    (["compare", "no/such/script.toml", "--vs-dt", "0.01"], "no such script"),
    (["compare", LAUNCH, "--vs-script", "no/such/other.toml"], "no such script"),
    (["compare", LAUNCH, "--vs-preset", "nosuch"], "nosuch"),
    (["compare", LAUNCH, "--vs-dt", "0"], "--vs-dt: dt = 0.0: the timestep must be a number in [1e-05, 0.05] s"),
    (["compare", LAUNCH, "--vs-dt", "1e-6"], "--vs-dt: dt = 1e-06: the timestep must be a number in [1e-05, 0.05] s"),
    (["compare", LAUNCH], "--vs-preset"),
    (["compare", LAUNCH, "--vs-dt", "0.01", "--atol", "-1"], "--atol"),
    (["compare", LAUNCH, "--vs-dt", "0.01", "--vs-preset", "sedan"], "not allowed with"),
    (["compare", "missing-a.csv", "missing-b.csv"], "no such file"),
    (["compare", LAUNCH, "--vs-dt", "1e-5"], "the limit is"),
    (["compare", LAUNCH, "--vs-dt", "0.01", "--csv", "no/such/folder/out.csv"], "does not exist"),
    (["compare", LAUNCH, "--vs-script", COAST, "--csv", LAUNCH], "one of the inputs"),
    (["compare", LAUNCH + ".csv", "x.csv", "--vs-dt", "0.01"], "--vs-"),
])
def test_bad_input_exits_2_with_one_line(capsys, args, needle):
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and needle in err, err


def test_a_car_in_pixels_against_one_in_metres_is_bad_input(capsys):
    code, out, err = cli(capsys, "compare", PARKING, "--vs-preset", "teaching")
    assert code == 2 and out == "" and "px" in err and err.count("\n") == 1


# -- CSVs ----------------------------------------------------------------------------------------

def test_csv_columns_per_channel_a_b_delta(tmp_path, capsys):
    target = tmp_path / "cmp.csv"
    code, _, err = cli(capsys, "compare", COAST, "--vs-set", "aero.cd=0.6", "--csv", target)
    assert code == 1, err
    lines = target.read_text(encoding="utf-8").splitlines()
    header = [split_header_cell(cell)[0] for cell in lines[0].split(",")]
    names = [name for name in channel_names("m") if name != "t"]
    assert header == ["t"] + [f"{n}.{part}" for n in names for part in ("a", "b", "delta")]
    assert {"speed_kmh.a", "speed_kmh.b", "speed_kmh.delta"} <= set(header)
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    i = header.index("speed_kmh.a")
    assert np.array_equal(rows[:, i + 2], rows[:, i + 1] - rows[:, i])
    assert len(rows) == compile_script(load_script(COAST)).frames


def test_two_telemetry_csvs_compare(tmp_path, capsys):
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    assert main(["replay", COAST, "--csv", str(a)]) == 0
    assert main(["replay", COAST, "--csv", str(b)]) == 0
    assert main(["replay", COAST, "--dt", str(1 / 60), "--csv", str(c)]) == 0
    capsys.readouterr()
    code, out, _ = cli(capsys, "compare", a, b)
    assert code == 0 and "the runs agree" in out
    code, out, _ = cli(capsys, "compare", a, c, "--json")
    report = json.loads(out)
    assert code == 1 and "B's frame times" in report["grid"]


def test_a_csv_of_one_frame_does_not_agree_with_a_longer_run(tmp_path, capsys):
    """A CSV of one frame has no dt of its own (read as 1 s), and the spans' tolerance, half a frame, let it agree
    with a run of up to 0.5 s (61 frames at 1/120 s; a review of the command line)."""
    whole = tmp_path / "whole.csv"
    assert main(["replay", COAST, "--csv", str(whole)]) == 0
    lines = whole.read_text().splitlines(keepends=True)
    for frames in (1, 2, 61):
        (tmp_path / f"n{frames}.csv").write_text("".join(lines[:1 + frames]))
    capsys.readouterr()
    for other in ("n2.csv", "n61.csv"):
        code, out, _ = cli(capsys, "compare", tmp_path / "n1.csv", tmp_path / other)
        assert code == 1 and "the runs cover different spans: A to 0 s" in out, out
    code, out, _ = cli(capsys, "compare", tmp_path / "n1.csv", tmp_path / "n1.csv")
    assert code == 0 and "the runs agree" in out  # one frame against itself still agrees
    code, out, _ = cli(capsys, "compare", tmp_path / "n61.csv", tmp_path / "n61.csv")
    assert code == 0 and "the runs agree" in out


def test_a_csv_whose_time_does_not_start_at_zero_is_refused(tmp_path, capsys):
    """A CSV with its first ten rows cut (t from 0.0833 s) was compared as if its first row were at t = 0 and held
    back to it, and one shifted by 100 s compared on no frame at all, said every channel was the same, and then that
    the runs differ. carbench's telemetry starts at t = 0: such a file is refused, saying where it starts."""
    whole = tmp_path / "whole.csv"
    assert main(["replay", COAST, "--csv", str(whole)]) == 0
    lines = whole.read_text(encoding="utf-8").splitlines()
    cut = tmp_path / "cut.csv"
    cut.write_text("\n".join([lines[0]] + lines[11:]) + "\n", encoding="utf-8")
    shifted = tmp_path / "shifted.csv"
    shifted.write_text("\n".join([lines[0]] + [f"{float(line.split(',', 1)[0]) + 100.0!r},{line.split(',', 1)[1]}"
                                               for line in lines[1:]]) + "\n", encoding="utf-8")
    capsys.readouterr()
    for bad, start in ((cut, "0.0833333"), (shifted, "100")):
        code, out, err = cli(capsys, "compare", bad, whole)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err == f"carbench: {bad}: line 2: the time column starts at {start} s; a telemetry CSV of carbench " \
                      "starts at 0\n", err


def test_csvs_not_written_by_carbench_are_refused(tmp_path, capsys):
    good = tmp_path / "good.csv"
    main(["replay", COAST, "--csv", str(good)])
    capsys.readouterr()
    other = tmp_path / "other.csv"
    other.write_text("time,speed\n0,1\n0.1,2\n", encoding="utf-8")
    code, out, err = cli(capsys, "compare", good, other)
    assert code == 2 and out == "" and "not a telemetry CSV written by carbench" in err
    cut = tmp_path / "cut.csv"
    lines = good.read_text(encoding="utf-8").splitlines()
    cut.write_text("\n".join(lines[:5] + [lines[5].rsplit(",", 1)[0]]) + "\n", encoding="utf-8")
    code, _, err = cli(capsys, "compare", good, cut)
    assert code == 2 and "line 6" in err
    # Lines are numbered as in the file, blank ones counted; a cell that is no number, or not finite, is named.
    blank = tmp_path / "blank.csv"
    blank.write_text("\n".join(lines[:2] + ["", ""] + lines[2:4] + [lines[4].rsplit(",", 1)[0]]) + "\n",
                     encoding="utf-8")
    code, _, err = cli(capsys, "compare", good, blank)
    columns = lines[0].count(",") + 1
    assert code == 2 and err == f"carbench: {blank}: line 7: {columns - 1} values for {columns} channels\n", err
    # A value as the file has it; one whose difference or display unit would overflow (to inf in the table, the JSON
    # and the CSV, with numpy's warnings on stderr) is refused too.
    for cell, said in (("abc", "'abc' is not a number"), ("nan", "'nan' is not finite"), ("-Inf", "'-Inf' is not finite"),
                       ("1e999", "'1e999' is beyond 1e300"), ("-1.7e308", "'-1.7e308' is beyond 1e300"),
                       # what float() reads but carbench never writes: read as 10, 1 and 1 before
                       ("1_0", "'1_0' is not a number as carbench writes one"),
                       (" 1", "' 1' is not a number as carbench writes one"),
                       ("\u0661", "'\u0661' is not a number as carbench writes one")):
        bad = tmp_path / "bad.csv"
        row = lines[3].split(",")
        row[2] = cell
        bad.write_text("\n".join(lines[:3] + [",".join(row)] + lines[4:8]) + "\n", encoding="utf-8")
        code, out, err = cli(capsys, "compare", good, bad)
        column = lines[0].split(",")[2].split(" [")[0]
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"carbench: {bad}: line 4, column {column}: {said}"), err
        assert err.endswith("; not a telemetry CSV written by carbench\n"), err


def _long_csv(tmp_path, capsys, frames: int) -> Path:
    """A telemetry CSV of ``frames`` frames: a replay's rows over and over, its time column going on."""
    short = tmp_path / "short.csv"
    main(["replay", COAST, "--csv", str(short)])
    capsys.readouterr()
    lines = short.read_text(encoding="utf-8").splitlines()
    dt = float(lines[2].split(",")[0]) - float(lines[1].split(",")[0])
    rows = [line.split(",", 1)[1] for line in lines[1:]]
    path = tmp_path / "long.csv"
    path.write_text("\n".join([lines[0]] + [f"{k * dt!r},{rows[k % len(rows)]}" for k in range(frames)]) + "\n",
                    encoding="utf-8")
    return path


def test_a_csv_is_read_in_about_the_memory_of_its_values(tmp_path, capsys, monkeypatch):
    """compare reads a telemetry CSV a line at a time into one array of its size: reading it whole as text, and
    splitting that into lines, took four to five times the values' memory."""
    import tracemalloc

    import workbench.runs.compare as compare_module

    monkeypatch.setattr(compare_module, "_CHECK_BLOCK", 64)  # lines held for their check: 64, so that 8,000 frames
    path = _long_csv(tmp_path, capsys, 8_000)  # measure what 30,000 did, in a quarter of tracemalloc's time
    tracemalloc.start()
    try:
        run = read_csv_run(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    values = 8_000 * len(run.data) * 8
    assert len(run.data["t"]) == 8_000 and path.stat().st_size > values / 2
    assert peak - values < 0.5 * values, (peak, values)


def test_a_comparisons_csv_is_written_a_block_at_a_time(tmp_path, capsys, monkeypatch):
    """``compare --csv`` of two long runs: the text of every row at once, and the matrix of three columns per
    channel before it, took many times the runs' memory."""
    import tracemalloc

    import workbench.runs.compare as compare_module

    monkeypatch.setattr(compare_module, "_CSV_BLOCK", 64)  # blocks of 64 frames: the same test at a quarter of the
    frames = 4_000  # frames (63 blocks), and a quarter of tracemalloc's time (it took 13 s of the suite)
    path = _long_csv(tmp_path, capsys, frames)
    result = compare(read_csv_run(path), read_csv_run(path))
    values = frames * len(result.a_values) * 8
    tracemalloc.start()
    try:
        result.write_csv(tmp_path / "out.csv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * values, (peak, values)
    assert (tmp_path / "out.csv").read_text(encoding="utf-8") == result.csv_text()


def test_a_csv_of_too_many_frames_or_too_long_a_line_is_refused(tmp_path, capsys, monkeypatch):
    import workbench.runs.compare as compare_module

    path = _long_csv(tmp_path, capsys, 30)
    monkeypatch.setattr(compare_module, "MAX_CSV_FRAMES", 20)
    code, out, err = cli(capsys, "compare", path, path)
    # said from the count of its lines, before its values are read (a CSV of 2.16 million frames that `replay --csv`
    # wrote was refused after a minute of reading)
    assert code == 2 and out == "" and err == f"carbench: {path}: 30 lines of frames, more than the 20 frames " \
        "compare reads of a telemetry CSV (4.6 hours at 1/120 s; the limit of a script's run too)\n", err
    reads = []
    real_read = compare_module._read_csv
    monkeypatch.setattr(compare_module, "_read_csv", lambda *args: reads.append(args) or real_read(*args))
    assert cli(capsys, "compare", path, path)[0] == 2 and reads == []
    monkeypatch.setattr(compare_module, "MAX_CSV_FRAMES", 30)
    assert len(read_csv_run(path).data["t"]) == 30
    lines = path.read_text(encoding="utf-8").splitlines()
    wide = tmp_path / "wide.csv"
    wide.write_text("\n".join(lines[:3] + [lines[3] + " " * 70_000] + lines[4:]) + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "compare", path, wide)
    assert code == 2 and out == "" and err == f"carbench: {wide}: line 4: longer than 64 KiB; not a telemetry CSV " \
                                              "written by carbench\n", err


def test_csvs_of_cars_in_other_units_are_refused(tmp_path, capsys):
    metres, pixels = tmp_path / "m.csv", tmp_path / "px.csv"
    main(["replay", COAST, "--csv", str(metres)])
    main(["replay", PARKING, "--csv", str(pixels)])
    capsys.readouterr()
    assert read_csv_run(pixels).unit == "px" and read_csv_run(metres).unit == "m"
    code, out, err = cli(capsys, "compare", metres, pixels)
    assert code == 2 and out == "" and "in m" in err and "in px" in err
    with pytest.raises(CompareError):
        compare(read_csv_run(metres), read_csv_run(pixels))


# -- stamps --------------------------------------------------------------------------------------

def test_stamp_names_the_preset_its_hash_and_every_changed_parameter():
    preset = load_preset("sedan").params
    run = preset.with_values({"body.mass": 1400.0, "engine.peak_torque": 400.0})
    stamp = make_stamp("sedan", preset, run, 1 / 120)
    assert stamp.preset == "sedan" and stamp.preset_sha256 == params_sha256(preset) != stamp.params_sha256
    assert [(c.path, c.preset, c.run) for c in stamp.changed] == [
        ("body.mass", preset.body.mass, 1400.0), ("engine.peak_torque", preset.engine.peak_torque, 400.0)]
    assert stamp.numpy == np.__version__ and stamp.dt == 1 / 120
    assert params_sha256(load_preset("sedan").params) == stamp.preset_sha256  # canonical: same car, same hash


def _recording(tmp_path) -> Path:
    session = LiveSession("sedan")
    session.set_param("body.mass", 1350.0)
    session.start_recording()
    for k in range(120):
        session.step({"throttle"} if k < 90 else set())
    script = session.stop_recording("rec")
    return script.save(tmp_path / "rec.toml")


def test_stamp_round_trip_through_a_recording(tmp_path, capsys):
    path = _recording(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert "[recorded]" in text
    loaded = load_script(path)
    assert loaded.recorded is not None
    assert [(c.path, c.run) for c in loaded.recorded.changed] == [("body.mass", 1350.0)]
    program = compile_script(loaded)
    assert loaded.recorded == program_stamp(program)  # what it was made with is what it replays with
    assert parse_script(loaded.to_toml(), "again").recorded == loaded.recorded
    code, out, err = cli(capsys, "replay", path, "--json")
    assert code == 0 and err == ""
    entry = json.loads(out)["scripts"][0]
    assert entry["stamp"] == entry["recorded"] == loaded.recorded.to_table()


def test_a_recording_replayed_otherwise_says_so_in_one_line(tmp_path, capsys):
    path = _recording(tmp_path)
    code, out, err = cli(capsys, "replay", path, "--dt", 1 / 60)
    assert code == 0 and err.count("\n") == 1 and "recorded with" in err and "dt" in err
    older = tmp_path / "older.toml"
    older.write_text(path.read_text(encoding="utf-8").replace(
        f'carbench = "{load_script(path).recorded.carbench}"', 'carbench = "0.0.1"'), encoding="utf-8")
    code, out, err = cli(capsys, "replay", older)
    assert code == 0 and err.count("\n") == 1 and "carbench 0.0.1" in err


def test_unknown_keys_in_recorded_are_refused(tmp_path):
    text = _recording(tmp_path).read_text(encoding="utf-8")
    with pytest.raises(ScriptError, match="unknown key `extra`"):
        parse_script(text.replace("[recorded]\n", "[recorded]\nextra = 1\n"), "x.toml")
    with pytest.raises(ScriptError, match="changed #1: unknown key"):
        parse_script(text.replace('{ path = "body.mass"', '{ what = 1, path = "body.mass"'), "x.toml")


def test_a_parameter_given_twice_is_refused_not_the_last_taken(capsys):
    code, out, err = cli(capsys, "compare", LAUNCH, "--vs-set", "body.mass=1000", "--vs-set", "body.mass=1500")
    assert code == 2 and out == "" and err == "carbench: --vs-set body.mass: given twice\n"


def test_verdict_flips_are_marked(capsys):
    full_lock = str(scripts_dir() / "full_lock_left.toml")
    code, out, _ = cli(capsys, "compare", full_lock, "--vs-set", "tyres.mu=0.75", "--json")
    assert code == 1
    report = json.loads(out)
    flipped = [e for e in report["expectations"] if e["flipped"]]
    assert flipped and all(e["a"]["passed"] and not e["b"]["passed"] for e in flipped)
    assert all(e["a"]["passed"] == e["b"]["passed"] for e in report["expectations"] if not e["flipped"])
    # Measured in the channel's display unit, as every other value of the report (it gave rad/s beside deg/s).
    (turning,) = [e for e in report["expectations"] if e["label"] == "turns left"]
    (alone,) = replay([compile_script(load_script(full_lock))])
    (verdict,) = [v for v in alone.verdicts if v.expect.label() == "turns left"]
    assert turning["a"]["unit"] == "deg/s" and turning["a"]["measured"] == pytest.approx(np.degrees(verdict.measured))
    assert [c["unit"] for c in report["channels"] if c["channel"] == "yaw_rate"] == ["deg/s"]
    code, text, _ = cli(capsys, "compare", full_lock, "--vs-set", "tyres.mu=0.75")
    n = len(flipped)
    assert text.count("FLIP") == n and f"({n} verdict flip{'s' if n != 1 else ''}," in text


def test_a_parameter_a_script_changes_part_way_is_listed_with_when(capsys, tmp_path):
    """B's [[set]] makes the car heavier at 1 s: both start alike, and the report said 'parameters: the same'
    beside channels that parted there."""
    later = tmp_path / "later.toml"
    later.write_text(Path(COAST).read_text() + '\n[[set]]\nat = 1.0\nparams = { "body.mass" = 2000.0, '
                     '"steering.lock" = 0.5 }\n')  # radians, as a script's values are
    code, out, err = cli(capsys, "compare", COAST, "--vs-script", later, "--json")
    assert code == 1, err
    report = json.loads(out)
    assert report["params"] == []
    mass = load_preset("manual003").params.body.mass
    lock = load_preset("manual003").params.steering.lock
    frame = round(1.0 / report["b"]["dt"])
    assert report["edits"] == [
        {"run": "B", "frame": frame, "time": pytest.approx(1.0), "path": "body.mass", "before": mass, "after": 2000.0,
         "unit": "kg", "beyond": False},
        {"run": "B", "frame": frame, "time": pytest.approx(1.0), "path": "steering.lock",
         "before": pytest.approx(np.degrees(lock)), "after": pytest.approx(np.degrees(0.5)), "unit": "deg",
         "beyond": False}]
    code, out, err = cli(capsys, "compare", COAST, "--vs-script", later)
    assert "parameters at the start: the same" in out and "parameters changed part-way:" in out
    line = next(x for x in out.splitlines() if "body.mass" in x)
    assert line.split()[:2] == ["B", "at"] and "1.0000 s" in line and f"{mass:g} -> 2000" in line and "kg" in line
    # a script compared with itself has no edits, and its report no such section
    code, out, err = cli(capsys, "compare", COAST, "--vs-script", COAST)
    assert "part-way" not in out and "parameters: the same" in out


def test_a_change_made_after_the_other_run_ended_is_listed_as_past_the_compared_frames(capsys, tmp_path):
    """A run pinned early (A) against one that drove on and was edited later: the edit changed no compared frame,
    and the report said 'parameters: the same' without it."""
    text = Path(COAST).read_text()
    duration = load_script(COAST).duration
    longer = tmp_path / "longer.toml"
    longer.write_text(text.replace(f"duration = {duration}", f"duration = {duration + 2.0}", 1)
                      + f'\n[[set]]\nat = {duration + 1.0}\nparams = {{ "body.mass" = 2000.0 }}\n')
    code, out, err = cli(capsys, "compare", COAST, "--vs-script", longer, "--json")
    report = json.loads(out)
    (edit,) = report["edits"]
    assert edit["beyond"] and edit["time"] == pytest.approx(duration + 1.0) and edit["after"] == 2000.0
    code, out, err = cli(capsys, "compare", COAST, "--vs-script", longer)
    line = next(x for x in out.splitlines() if "body.mass" in x)
    assert line.rstrip().endswith("(past the compared frames)")


def test_a_friction_edit_says_where_the_motion_first_diverges(capsys):
    """A tyres.mu edit diverges at frame 0 in the road's friction under the wheels (mu_front, mu_rear), which only
    repeat the parameter: where the car itself moves apart was nowhere in the comparison (a review under Xvfb). It is
    said beside the first divergence, in the text, the JSON and the window's dock."""
    script = str(scripts_dir() / "full_lock_left.toml")
    code, out, err = cli(capsys, "compare", script, "--vs-set", "tyres.mu=0.75", "--json")
    report = json.loads(out)
    first, motion = report["divergence"], report["motion_divergence"]
    assert first["frame"] == 0 and {c["channel"] for c in first["channels"]} == {"mu_front", "mu_rear"}
    assert motion["frame"] > 0 and {c["channel"] for c in motion["channels"]} <= {"x", "y", "heading", "vx", "vy",
                                                                                  "yaw_rate"}
    code, out, err = cli(capsys, "compare", script, "--vs-set", "tyres.mu=0.75")
    assert f"the motion first diverges: frame {motion['frame']} (t = " in out



def test_the_motions_divergence_is_said_only_where_it_comes_later(tmp_path):
    import dataclasses

    path = tmp_path / "coast.csv"
    assert main(["replay", COAST, "--csv", str(path)]) == 0
    a = read_csv_run(path)
    for mu_at, vx_at, said in ((10, 40, 40), (10, 10, None), (40, 10, None)):
        data = {name: values.copy() for name, values in a.data.items()}
        data["mu_front"][mu_at:] += 0.5
        data["vx"][vx_at:] += 1.0
        result = compare(a, dataclasses.replace(a, data=data))
        assert result.divergence.frame == min(mu_at, vx_at)
        assert (result.motion.frame if result.motion else None) == said
        assert result.motion is None or [r.name for r in result.motion.channels] == ["vx"]


def test_against_another_dt_a_gear_and_a_flag_keep_whole_values(capsys):
    """On the coarse run's frame times the other run was interpolated channel by channel: the gear read 2.424 and
    wheelspin 0.568, values no run ever had (a review). Those channels take the frame at or before each time."""
    code, out, err = cli(capsys, "compare", LAUNCH, "--vs-dt", "0.0123", "--json")
    report = json.loads(out)
    assert "linearly interpolated" in report["grid"]
    rows = {r["channel"]: r for r in report["channels"]}
    for name in ("gear", "wheelspin"):
        assert name in rows, sorted(rows)
        assert float(rows[name]["a"]).is_integer() and float(rows[name]["b"]).is_integer(), rows[name]
    from physics import channel_infos
    from workbench.runs.compare import stepwise

    flags = {i.name for i in channel_infos("m") if stepwise(i)}
    assert {"gear", "wheelspin", "stalled", "handbrake", "esc_active", "abs_fl"} <= flags
    assert not {"speed", "clutch", "throttle", "slip_ratio_rear"} & flags


def test_a_csv_with_a_gap_in_its_time_says_where(tmp_path, capsys):
    """Ten frames cut from the middle were refused without a word of where."""
    whole = tmp_path / "whole.csv"
    assert main(["replay", COAST, "--csv", str(whole)]) == 0
    lines = whole.read_text(encoding="utf-8").splitlines()
    gap = tmp_path / "gap.csv"
    gap.write_text("\n".join(lines[:51] + lines[61:]) + "\n", encoding="utf-8")  # frames 50..59 (t 0.4167..) gone
    t = [float(line.split(",", 1)[0]) for line in lines[1:]]
    capsys.readouterr()
    code, out, err = cli(capsys, "compare", gap, whole)
    assert code == 2 and out == "" and err == (
        f"carbench: {gap}: the time column does not advance by a fixed dt: frame 50 (t = {t[60]:.6g} s) follows "
        f"t = {t[49]:.6g} s, where frames 0 and 1 are {t[1]:.6g} s apart\n"), err  # frames counted from 0
    still = tmp_path / "still.csv"
    still.write_text("\n".join(lines[:2] + lines[1:]) + "\n", encoding="utf-8")  # frame 0 twice
    code, out, err = cli(capsys, "compare", still, whole)
    assert code == 2 and err == f"carbench: {still}: the time column does not advance: its first two frames are at " \
                                "t = 0 and 0 s\n", err


def _without(lines: list[str], names: set[str]) -> str:
    """A telemetry CSV's lines with the columns of ``names`` left out, as an earlier release wrote it."""
    keep = [j for j, cell in enumerate(lines[0].split(",")) if split_header_cell(cell)[0] not in names]
    return "".join(",".join(line.split(",")[j] for j in keep) + "\n" for line in lines)


def test_a_csv_of_an_earlier_release_is_compared_on_the_channels_both_have(tmp_path, capsys):
    """A release that adds a channel writes one more column: a CSV written before it (the list less that channel) is
    still carbench's, and compared on every channel both have; the one only the newer has is named, not compared."""
    new = tmp_path / "new.csv"
    main(["replay", LAUNCH, "--csv", str(new)])
    capsys.readouterr()
    lines = new.read_text(encoding="utf-8").splitlines()
    old = tmp_path / "old.csv"
    old.write_text(_without(lines, {"throttle_applied"}), encoding="utf-8")
    code, out, err = cli(capsys, "compare", old, new, "--json")
    doc = json.loads(out)
    assert code == 0 and err == "" and doc["left_out"] == ["throttle_applied"]
    code, out, _ = cli(capsys, "compare", new, old)
    assert code == 0 and "not compared: 1 channel one of the runs does not have (throttle_applied)" in out
    # Only channels added since may be missing (the list less esc_active is no release's).
    older = tmp_path / "older.csv"
    older.write_text(_without(lines, {"throttle_applied", "esc_active"}), encoding="utf-8")
    assert cli(capsys, "compare", older, new)[0] == 2
    # The comparison finds a difference in a channel both have.
    cells = lines[40].split(",")
    x = [split_header_cell(c)[0] for c in lines[0].split(",")].index("x")
    cells[x] = repr(float(cells[x]) + 1.0)
    moved = tmp_path / "moved.csv"
    moved.write_text(_without(lines[:40] + [",".join(cells)] + lines[41:], {"throttle_applied"}), encoding="utf-8")
    code, out, _ = cli(capsys, "compare", new, moved, "--json")
    assert code == 1 and json.loads(out)["divergence"]["frame"] == 39


def test_an_earlier_release_s_csv_of_a_car_in_pixels_with_bare_names_is_read_in_pixels(tmp_path, capsys):
    """The pixels list is the metres one less speed_kmh: a pixels CSV of bare names, less throttle_applied, was read as
    a car in metres, and refused beside its own car's run (or compared with a car in metres)."""
    new = tmp_path / "new.csv"
    main(["replay", PARKING, "--csv", str(new)])
    capsys.readouterr()
    lines = new.read_text(encoding="utf-8").splitlines()
    bare = [",".join(split_header_cell(c)[0] for c in lines[0].split(","))] + lines[1:]
    old = tmp_path / "old.csv"
    old.write_text(_without(bare, {"throttle_applied"}), encoding="utf-8")
    assert read_csv_run(old).unit == "px"
    code, out, _ = cli(capsys, "compare", new, old)
    assert code == 0 and "not compared: 1 channel one of the runs does not have (throttle_applied)" in out


@pytest.mark.parametrize("change", ["swapped", "no motion", "twice", "not t first", "other unit"])
def test_a_header_that_is_not_carbench_s_list_less_some_channels_is_refused(tmp_path, capsys, change):
    new = tmp_path / "new.csv"
    main(["replay", COAST, "--csv", str(new)])
    capsys.readouterr()
    lines = new.read_text(encoding="utf-8").splitlines()
    cells = lines[0].split(",")
    names = [split_header_cell(c)[0] for c in cells]
    if change == "swapped":  # two channels in another order
        j, k = names.index("vx"), names.index("vy")
        cells[j], cells[k] = cells[k], cells[j]
        bad = [",".join(cells)] + lines[1:]
    elif change == "no motion":
        bad = _without(lines, {"yaw_rate"}).splitlines()
    elif change == "twice":
        cells[names.index("vy")] = cells[names.index("vx")]
        bad = [",".join(cells)] + lines[1:]
    elif change == "not t first":
        bad = _without(lines, {"t"}).splitlines()
    else:  # a list less a channel, with a unit carbench does not write the channel in
        cells[names.index("x")] = "x [px]"
        bad = _without([",".join(cells)] + lines[1:], {"throttle_applied"}).splitlines()
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(bad) + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "compare", new, path)
    assert code == 2 and out == "" and err.count("\n") == 1 and str(path) in err, err
