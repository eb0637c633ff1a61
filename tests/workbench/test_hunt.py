"""The hunt: deterministic for a seed, a shrinker that finds a short script, and the command's exits."""

from __future__ import annotations

import faults

from physics import DEFAULT_DT
from workbench.runs import hunt
from workbench.runs.monitors import frames_of_result, run_monitors
from workbench.runs.replay import replay
from workbench.scripts.format import load_script, parse_script
from workbench.scripts.program import compile_script


def test_random_scripts_depend_only_on_seed_preset_and_car():
    a = hunt.random_case("sedan", 0, 7, 3, 20.0, DEFAULT_DT, True)
    assert a == hunt.random_case("sedan", 0, 7, 3, 20.0, DEFAULT_DT, True)
    assert a != hunt.random_case("sedan", 0, 8, 3, 20.0, DEFAULT_DT, True)
    assert a != hunt.random_case("sedan", 0, 7, 4, 20.0, DEFAULT_DT, True)
    keys = {k for keys, _, _ in a.segments for k in keys}
    assert {"throttle", "clutch"} <= keys
    assert all(0 <= first < end <= a.frames - 1 for _, first, end in a.segments)


def test_a_hunt_is_deterministic_for_a_seed():
    with faults.no_rev_limiter():
        runs = [hunt.hunt(["sedan"], 6, 12.0, 11, selection=["rpm_range"]) for _ in range(2)]
    assert runs[0], "the fault makes something fire"
    assert runs[0] == runs[1]
    assert [f.monitor for f in runs[0]] == ["rpm_range"]


def test_shrinker_turns_a_failing_minute_into_a_few_holds():
    monitor = "energy_gain"
    with faults.pushing_drag():
        case = hunt.random_case("manual003", 0, 1, 0, 60.0, DEFAULT_DT, True)  # 003's car: the fault's path
        assert len(case.segments) > 20
        assert monitor in hunt.first_violations([case], [monitor])[0]
        minimal, violation = hunt.shrink(case, monitor)
        assert len(minimal.segments) <= 3
        assert minimal.frames < case.frames
        # The written script fails on its own, through the script format and a replay.
        text = hunt.to_script(minimal, "flip").to_toml()
        result = replay([compile_script(parse_script(text))])[0]
        assert {v.monitor for v in run_monitors(frames_of_result(result), [monitor])} == {monitor}
        assert hunt.shrink(case, monitor) == (minimal, violation)  # deterministic too
    result = replay([compile_script(parse_script(text))])[0]
    assert run_monitors(frames_of_result(result), [monitor]) == []  # the model without the fault


def test_hunt_command_writes_minimal_scripts_that_fail(run_cli, tmp_path):
    out = tmp_path / "found"
    done = run_cli("hunt", "--preset", "sedan", "--cars", "4", "--seconds", "8", "--seed", "2", "--out", out)
    assert done.returncode in (0, 1), done.stderr
    assert "hunt: 1 preset x 4 cars x 8 s" in done.stdout
    written = sorted(out.glob("*.toml")) if out.exists() else []
    assert (done.returncode == 1) == bool(written)
    for path in written:
        script = load_script(path)
        assert script.monitors and path.stem.startswith(script.monitors[0].name)
        assert path.read_text().startswith("# carbench hunt --preset sedan --seed 2")
        assert run_cli("replay", path).returncode == 1


def test_hunt_command_refuses_bad_input(run_cli, tmp_path):
    for args, reason in ((["--cars", "0"], "--cars 0"), (["--cars", "10001"], "--cars"),
                         (["--seconds", "0"], "--seconds"), (["--seconds", "601"], "--seconds"),
                         (["--preset", "nope"], "no such preset"), (["--seed", "-1"], "--seed"),
                         (["--preset", "sedan", "tail_happy", "sedan"], "--preset: sedan is named twice"),
                         (["--workers", "1", "--scheduler", "tcp://x:1"], "one or the other"),
                         (["--out", str(tmp_path / "a" / "b")], "does not exist")):
        done = run_cli("hunt", *args, "--seconds" if "--seconds" not in args else "--cars", "1")
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert reason in done.stderr and "Traceback" not in done.stderr and done.stdout == ""


def test_hunt_takes_a_preset_inside_its_out_folder_and_writes_beside_what_is_there(run_cli, tmp_path):
    """Its scripts go to free names: a preset in --out (refused as 'would overwrite' before), or a file under a name a
    script of it would take, stays as it is."""
    from physics.presets import cars_dir
    from workbench.runs.hunt_cli import _free_path

    out = tmp_path / "out"
    out.mkdir()
    mine = out / "mycar.toml"
    mine.write_bytes((cars_dir() / "manual003.toml").read_bytes())
    done = run_cli("hunt", "--preset", mine, "--cars", "2", "--seconds", "2", "--seed", "1", "--out", out)
    assert done.returncode in (0, 1) and "would overwrite" not in done.stderr, done.stderr
    assert mine.read_bytes() == (cars_dir() / "manual003.toml").read_bytes()
    other = tmp_path / "other"  # a folder of its own: what the hunt above wrote does not count
    other.mkdir()
    (other / "rpm_range-1.toml").write_text("mine")
    (other / "rpm_range-2.toml").symlink_to(tmp_path / "nowhere")  # a dangling link is not replaced either
    assert _free_path(other, "rpm_range", set()) == other / "rpm_range-3.toml"
    assert _free_path(other, "rpm_range", {other / "rpm_range-3.toml"}) == other / "rpm_range-4.toml"


def test_a_hunt_on_a_preset_file_writes_scripts_that_find_it_from_anywhere(tmp_path, monkeypatch, capsys):
    """The script named the preset as typed (../pre/mycar.toml, relative to where the hunt ran): it did not replay
    from its own folder or any other. Its header now gives the hunt's cars and seconds too."""
    from physics.presets import cars_dir
    from workbench.cli import main

    (tmp_path / "pre").mkdir()
    (tmp_path / "run" / "there").mkdir(parents=True)  # an --out that exists: the staging folder is inside it
    mine = tmp_path / "pre" / "mycar.toml"
    mine.write_bytes((cars_dir() / "sedan.toml").read_bytes())
    monkeypatch.chdir(tmp_path / "run")
    with faults.no_rev_limiter():
        for out in ("found", "there"):
            code = main(["hunt", "--preset", "../pre/mycar.toml", "--cars", "6", "--seconds", "12", "--seed", "11",
                         "--out", out])
            assert code == 1, capsys.readouterr().err
            assert (tmp_path / "run" / out / "report" / "index.html").is_file()
    capsys.readouterr()
    written = sorted((tmp_path / "run" / "found").glob("*.toml"))
    assert written and sorted(p.name for p in (tmp_path / "run" / "there").glob("*.toml")) == [w.name for w in written]
    for cwd in (tmp_path, tmp_path / "run" / "found"):
        monkeypatch.chdir(cwd)
        program = compile_script(load_script(written[0]))
        assert program.preset_path.resolve() == mine.resolve()
    text = written[0].read_text()
    assert text.startswith("# carbench hunt --preset ../pre/mycar.toml --cars 6 --seconds 12 --seed 11")
    assert 'preset = "../../pre/mycar.toml"' in text


def test_a_long_hunt_runs_in_batches_its_memory_allows_and_finds_the_same(monkeypatch):
    """200 cars of 600 s with every channel kept (the finite monitor) asked for 11 GB at once: a batch now holds at
    most BATCH_BYTES of telemetry, and what a hunt finds does not depend on its batches."""
    assert hunt.chunk_cars(600.0) * (72001 * 103 * 8) <= hunt.BATCH_BYTES < (hunt.chunk_cars(600.0) + 1) * 72001 * 103 * 8
    assert hunt.chunk_cars(1.0) == hunt.CHUNK and hunt.chunk_cars(1e6) == 1
    with faults.no_rev_limiter():
        whole = hunt.hunt(["sedan"], 6, 12.0, 11, selection=["rpm_range"])
        from workbench.runs.monitors import channels_read

        per_car = 1441 * len(channels_read(["rpm_range"])) * 8  # 12 s at 1/120 of what rpm_range reads
        monkeypatch.setattr(hunt, "BATCH_BYTES", 2 * per_car)  # two cars a batch
        assert len(hunt.chunks(["sedan"], 6, 12.0, 11, selection=["rpm_range"])) == 3
        assert hunt.hunt(["sedan"], 6, 12.0, 11, selection=["rpm_range"]) == whole


def test_the_summary_gives_a_short_hunts_car_seconds():
    # 1 preset x 1 car x 0.005 s read "= 0 car-seconds"
    from workbench.runs.hunt import summary

    assert summary([], ["sedan"], 1, 0.005, []).splitlines()[0] == "hunt: 1 preset x 1 car x 0.005 s = 0.005 car-seconds"
    assert summary([], ["sedan", "classic"], 300, 30.0, []).splitlines()[0].endswith("= 18,000 car-seconds")


def test_a_preset_file_named_with_a_newline_or_bytes_that_are_not_utf8(tmp_path, monkeypatch, capsys):
    """A newline in the preset's file name went raw into the scripts' header comment: TOML refused the line and the
    whole hunt's findings were lost ("not valid TOML", exit 2). A name that is not UTF-8 was refused only after the
    hunt had run (a review of the command line)."""
    import os

    from physics.presets import cars_dir
    from workbench.cli import main
    from workbench.runs import hunt_cli

    monkeypatch.chdir(tmp_path)
    odd = tmp_path / "my\ncar.toml"
    odd.write_bytes((cars_dir() / "sedan.toml").read_bytes())
    with faults.no_rev_limiter():
        code = main(["hunt", "--preset", str(odd), "--cars", "6", "--seconds", "12", "--seed", "11", "--out", "found"])
    err = capsys.readouterr().err
    assert code == 1, err
    written = sorted((tmp_path / "found").glob("*.toml"))
    assert written
    for path in written:
        text = path.read_text()
        assert text.startswith("# carbench hunt --preset ") and "my\\ncar.toml --cars 6" in text.splitlines()[0]
        assert load_script(path).preset.endswith("my\ncar.toml")  # the script's own TOML string holds the name
    raw = tmp_path / os.fsdecode(b"my\xe9car.toml")
    raw.write_bytes((cars_dir() / "sedan.toml").read_bytes())

    def no_hunt(*args, **kwargs):
        raise AssertionError("the hunt ran")

    monkeypatch.setattr(hunt_cli.hunting, "hunt", no_hunt)
    code = main(["hunt", "--preset", str(raw), "--cars", "6", "--seconds", "12", "--seed", "11", "--out", "found"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "not UTF-8" in err and "my\\xe9car.toml" in err, err


def test_a_shrunk_script_of_one_hold_says_one_hold():
    from workbench.runs.hunt import _holds

    assert (_holds(1), _holds(0), _holds(3)) == ("1 hold", "0 holds", "3 holds")  # "Shrunk to 1 holds" before
