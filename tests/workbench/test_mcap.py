"""`carbench replay --mcap`: read back with mcap's own reader (counts, fields, times, schemas)."""

from __future__ import annotations

import json
import math

import pytest
from mcap.reader import make_reader

from physics import channel_names
from physics.presets import scripts_dir
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script


def _read(path):
    with open(path, "rb") as f:
        reader = make_reader(f)
        messages = [(schema, channel, message) for schema, channel, message in reader.iter_messages()]
        summary = reader.get_summary()
    return messages, summary


def test_mcap_round_trip(run_cli, tmp_path):
    edited = tmp_path / "edited.toml"
    edited.write_text((scripts_dir() / "clutch_coast.toml").read_text()
                      + '\n[[set]]\nat = 1.0\nparams = { "tyres.mu" = 0.5 }\n[[monitor]]\nname = "rpm_range"\n')
    paths = [edited, scripts_dir() / "parking_reverse_bay.toml"]
    out = tmp_path / "run.mcap"
    done = run_cli("replay", *paths, "--mcap", out)
    assert done.returncode == 0, done.stderr
    messages, summary = _read(out)
    programs = [compile_script(load_script(p)) for p in paths]
    results = replay(programs)
    by_topic: dict[str, list] = {}
    for schema, channel, message in messages:
        assert channel.message_encoding == "json" and schema.encoding == "jsonschema"
        by_topic.setdefault(channel.topic, []).append((schema, message))
    assert set(by_topic) == {f"/{n}/{kind}" for n in ("clutch-coast", "parking-reverse-bay")
                             for kind in ("telemetry", "parameters", "verdicts")}
    for p, r in zip(programs, results, strict=True):
        frames = by_topic[f"/{p.name}/telemetry"]
        assert len(frames) == p.frames
        schema = json.loads(frames[0][0].data)
        unit = p.params.model.unit
        assert list(schema["properties"]) == channel_names(unit)
        for k in (0, 1, p.frames // 2, p.frames - 1):
            message = frames[k][1]
            assert message.log_time == round(k * p.dt * 1e9) == message.publish_time
            doc = json.loads(message.data)
            assert list(doc) == channel_names(unit)
            assert doc["speed"] == float(r.column("speed")[k]) and doc["t"] == k * p.dt
        verdicts = [json.loads(m.data) for _, m in by_topic[f"/{p.name}/verdicts"]]
        assert sorted(v["label"] for v in verdicts) == sorted(e.label() for e in p.script.expects)
        assert all(v["passed"] for v in verdicts)
    params = [json.loads(m.data) for _, m in by_topic["/clutch-coast/parameters"]]
    change = programs[0].param_changes[0][0]
    assert [m.log_time for _, m in by_topic["/clutch-coast/parameters"]] == [0, round(change * programs[0].dt * 1e9)]
    assert [p["from_time"] for p in params] == [0.0, change * programs[0].dt]
    assert params[0]["parameters"]["tyres"]["mu"] == 1.0 and params[1]["parameters"]["tyres"]["mu"] == 0.5
    assert params[0]["stamp"]["preset"] == "manual003" and len(params[0]["stamp"]["params_sha256"]) == 64
    assert summary.statistics.message_count == len(messages)


def test_mcap_refuses_a_bad_path_before_running(run_cli, tmp_path):
    done = run_cli("replay", scripts_dir() / "clutch_coast.toml", "--mcap", tmp_path / "no" / "x.mcap")
    assert done.returncode == 2 and "--mcap" in done.stderr and done.stdout == ""


def test_the_windows_mcap_has_the_parameters_the_session_stepped_with_at_each_change(tmp_path):
    """The window's export wrote one parameters message at t = 0 with the parameters of the end (the last edit)."""
    from workbench.output.mcap_log import write_session_mcap
    from workbench.runs.live import LiveSession

    session = LiveSession("sedan")
    masses = []
    for mass in (None, 2000.0, 1200.0):
        if mass is not None:
            session.set_params({"body.mass": mass})
        masses.append(session.params.body.mass)
        for _ in range(240):
            session.step({"throttle"})
    path = write_session_mcap(session, tmp_path / "session.mcap")
    messages, _ = _read(path)
    docs = [json.loads(m.data) for _, channel, m in messages if channel.topic.endswith("/parameters")]
    times = [m.log_time for _, channel, m in messages if channel.topic.endswith("/parameters")]
    assert [d["parameters"]["body"]["mass"] for d in docs] == masses
    assert [d["from_time"] for d in docs] == [0.0, 240 * session.dt, 480 * session.dt]
    assert times == sorted(times) and times[0] == 0
    # stamped as its recording and its pinned run are: with the parameters it started with, not those of the end
    from workbench.runs.stamp import params_sha256

    start = params_sha256(session.history.start_params)
    assert start != params_sha256(session.params)
    assert docs[0]["stamp"]["params_sha256"] == start
    assert session.whole_run().stamp.params_sha256 == start
    # and each change's message stamps its own parameters (each carried the run's, of frame 0, with no change listed)
    for doc, mass in zip(docs[1:], masses[1:], strict=True):
        assert doc["stamp"]["params_sha256"] != start
        assert [(c["path"], c["run"]) for c in doc["stamp"]["changed"]] == [("body.mass", mass)]
        assert doc["stamp"]["preset_sha256"] == docs[0]["stamp"]["preset_sha256"]


def test_a_scripts_parameter_changes_are_stamped_each_with_its_own_parameters_and_topics_keep_its_letters(tmp_path):
    from workbench.output.mcap_log import run_of_result, write_runs
    from workbench.runs.stamp import params_sha256
    from workbench.scripts.format import parse_script

    text = """
[script]
name = "Bremsweg über 100"
preset = "sedan"
duration = 3.0

[[set]]
at = 1.0
params = { "engine.peak_torque" = 100.0 }

[[set]]
at = 2.0
params = { "body.mass" = 2000.0 }
"""
    program = compile_script(parse_script(text, "p.toml"))
    (result,) = replay([program])
    write_runs([run_of_result(result)], tmp_path / "p.mcap")
    messages, _ = _read(tmp_path / "p.mcap")
    topics = {channel.topic for _, channel, _ in messages}
    assert "/Bremsweg_über_100/parameters" in topics  # "über" was "ber"
    docs = [json.loads(m.data) for _, channel, m in messages if channel.topic.endswith("/parameters")]
    changed = [sorted(c["path"] for c in d["stamp"]["changed"]) for d in docs]
    assert changed == [[], ["engine.peak_torque"], ["body.mass", "engine.peak_torque"]]
    cars = [program.params] + [car for _, car in program.param_changes]
    assert [d["stamp"]["params_sha256"] for d in docs] == [params_sha256(car) for car in cars]


def test_the_mcap_has_each_measure_at_the_end_of_its_window(tmp_path):
    """abs_in_a_bend's five [[measure]] entries went into the text table and the JSON but not the log."""
    from workbench.output.mcap_log import run_of_result, write_runs

    program = compile_script(load_script(scripts_dir() / "abs_in_a_bend.toml"))
    (result,) = replay([program])
    write_runs([run_of_result(result)], tmp_path / "m.mcap")
    messages, _ = _read(tmp_path / "m.mcap")
    docs = [(m.log_time, json.loads(m.data)) for _, channel, m in messages if channel.topic.endswith("/verdicts")]
    measures = [(t, d) for t, d in docs if d["kind"] == "measure"]
    assert [d["label"] for _, d in measures] == [m.measure.name for m in sorted(result.measurements,
                                                                                key=lambda m: m.last)]
    for m in result.measurements:
        t, d = next((t, d) for t, d in measures if d["label"] == m.measure.name)
        assert d["si"]["measured"] == m.value and d["si"]["unit"] == m.unit and d["passed"] is None
        assert d["frame"] == m.last and t == round(m.last * program.dt * 1e9)
    assert len([d for _, d in docs if d["kind"] == "expectation"]) == len(program.script.expects)


def test_the_mcap_verdicts_are_in_display_units_as_the_reports(tmp_path):
    """The log's verdicts and measures gave the body slip in rad where the table, the JSON and the HTML report give
    degrees: every value of a channel is in its display unit, with the SI figures beside it."""
    from workbench.output.mcap_log import run_of_result, write_runs
    from workbench.output.report import as_json

    program = compile_script(load_script(scripts_dir() / "abs_in_a_bend.toml"))
    (result,) = replay([program])
    write_runs([run_of_result(result)], tmp_path / "m.mcap")
    messages, _ = _read(tmp_path / "m.mcap")
    docs = [json.loads(m.data) for _, channel, m in messages if channel.topic.endswith("/verdicts")]
    (report,) = as_json([result])["scripts"]
    expectations = [d for d in docs if d["kind"] == "expectation"]
    assert len(expectations) == len(report["expectations"]) > 0
    for d in expectations:
        shown = next(e for e in report["expectations"] if e["label"] == d["label"] and e["frame"] == d["frame"])
        assert (d["measured"], d["min"], d["max"], d["unit"]) == (shown["measured"], shown["min"], shown["max"],
                                                                 shown["unit"])
    slip = next(d for d in expectations if d["channel"] == "beta")
    assert slip["unit"] == "deg" and slip["si"]["unit"] == "rad"
    assert slip["measured"] == pytest.approx(math.degrees(slip["si"]["measured"]), rel=1e-12)
    assert slip["max"] == pytest.approx(math.degrees(slip["si"]["max"]), rel=1e-12)
    for d in (d for d in docs if d["kind"] == "measure"):
        shown = next(m for m in report["measures"] if m["name"] == d["label"])
        assert (d["measured"], d["unit"]) == (shown["value"], shown["unit"])
    stopped_at = next(d for d in docs if d["kind"] == "measure" and d["si"]["unit"] == "s")
    assert stopped_at["how"].startswith("first time below 0.001 m/s") and stopped_at["measured"] == \
        stopped_at["si"]["measured"]


def test_the_telemetry_goes_into_the_mcap_a_block_of_frames_at_a_time_with_the_same_bytes(tmp_path, monkeypatch):
    """The whole run's telemetry was turned into Python floats at once (3.7 GB at the peak for a run of 588 MB, a
    MemoryError for a run within --max-memory): a block at a time gives the same file."""
    from workbench.cli import main
    from workbench.output import mcap_log

    script = scripts_dir() / "clutch_coast.toml"
    assert main(["replay", str(script), "--mcap", str(tmp_path / "whole.mcap")]) == 0
    monkeypatch.setattr(mcap_log, "TELEMETRY_BLOCK", 7)  # blocks that do not divide the frames
    assert main(["replay", str(script), "--mcap", str(tmp_path / "blocks.mcap")]) == 0
    assert (tmp_path / "blocks.mcap").read_bytes() == (tmp_path / "whole.mcap").read_bytes()
    messages, _ = _read(tmp_path / "blocks.mcap")
    telemetry = [m for _, c, m in messages if c.topic.endswith("/telemetry")]
    frames = compile_script(load_script(script)).frames
    assert frames > 7 * 10 and [m.sequence for m in telemetry] == list(range(frames))


def test_the_telemetry_is_not_held_as_python_floats_all_at_once(tmp_path, monkeypatch):
    """What the MCAP writer holds besides the run's own arrays: a block of frames as Python floats, not the run's
    (a minute of one car, 7,201 frames of 102 channels, took 26 MB at the peak of writing; in blocks of 64, 2.6)."""
    import re
    import tracemalloc

    from workbench.output import mcap_log
    from workbench.scripts.format import parse_script

    text = re.sub(r"duration = [0-9.]+", "duration = 60.0", (scripts_dir() / "clutch_coast.toml").read_text(), count=1)
    results = replay([compile_script(parse_script(text, "minute.toml"))])
    values = results[0].program.frames * len(channel_names("m"))
    monkeypatch.setattr(mcap_log, "TELEMETRY_BLOCK", 64)
    tracemalloc.start()
    try:
        mcap_log.write_mcap(results, tmp_path / "minute.mcap")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert values > 700_000 and peak < 8 * values  # 24 bytes a Python float and 8 for its place in a list, at once


def test_running_out_of_memory_is_one_line_not_a_traceback(monkeypatch, capsys):
    from workbench import cli

    def no_room(argv):
        raise MemoryError

    monkeypatch.setattr(cli, "_main", no_room)
    assert cli.main(["replay", "x.toml"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("carbench: out of memory")
