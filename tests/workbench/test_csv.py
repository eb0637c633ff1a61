"""CSV export (SPEC 5): a header of channel names, one row per frame, values that parse back exactly."""

from __future__ import annotations

import io

import numpy as np

from physics import Inputs, Simulation, channel_infos, channel_names, load_preset
from workbench.names import unique_names
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script


def parse_csv(text: str) -> tuple[list[str], np.ndarray]:
    assert text.endswith("\n") and "\r" not in text
    from workbench.output.telemetry_log import split_header_cell

    first, _, body = text.partition("\n")
    header = [split_header_cell(cell)[0] for cell in first.split(",")]
    # numpy's reader parses each cell as Python's float() does (correctly rounded), and refuses a row with a
    # different number of cells.
    values = np.loadtxt(io.StringIO(body), delimiter=",", dtype=float, ndmin=2, comments=None)
    assert values.shape[1] == len(header) or values.size == 0
    assert body.count("\n") == len(values)  # no line skipped (numpy's reader passes over empty lines)
    return header, values.reshape(-1, len(header))


def assert_csv_is_the_telemetry(text: str, result) -> None:
    header, values = parse_csv(text)
    unit = load_preset(result.program.preset).params.model.unit
    assert header == channel_names(unit)
    p = result.program
    assert len(values) == p.frames == round(p.script.duration / p.dt) + 1
    for j, name in enumerate(header):
        column = np.ascontiguousarray(result.column(name))
        assert values[:, j].tobytes() == column.tobytes(), name  # bit for bit, signs of zero included


def by_name(results, name):
    return next(r for r in results if r.program.name == name)


def test_csv_text_of_a_shipped_script_on_every_preset(shipped_alone):
    # The text is written by one code path whatever the car: the shortest shipped script of each preset (every
    # kind of car and unit of length) is enough to see every value parse back; test_csv_text_of_a_batch_member
    # compares the text of a few scripts in full, and the digests of all of them.
    shortest: dict[str, object] = {}
    for result in shipped_alone:
        kept = shortest.get(result.program.preset)
        if kept is None or result.program.frames < kept.program.frames:
            shortest[result.program.preset] = result
    assert len(shortest) >= 6
    for result in shortest.values():
        assert_csv_is_the_telemetry(result.csv_text(), result)


def test_csv_text_of_a_batch_member_is_its_own_car(shipped_batch, shipped_alone):
    # The CSV is written from the log's channels and nothing else: the same channels with the same bits (the
    # digest) give the same text, which is compared in full for a few scripts of each kind of car.
    texts = 0
    for together, alone in zip(shipped_batch, shipped_alone, strict=True):
        assert together.log.names == alone.log.names
        assert together.digest() == alone.digest(), together.program.name
        if together.program.name in ("parking-full-lock", "clutch-coast", "coast-down", "iso3888-2"):
            assert together.csv_text() == alone.csv_text()
            texts += 1
    assert texts >= 3
    parking = by_name(shipped_batch, "parking-full-lock")
    assert "speed_kmh [km/h]" not in parking.csv_text().splitlines()[0].split(",")
    assert "speed_kmh [km/h]" in by_name(shipped_batch, "clutch-coast").csv_text().splitlines()[0].split(",")


def test_csv_header_is_the_channels_in_order(shipped_alone):
    header = by_name(shipped_alone, "coast-down").csv_text().splitlines()[0]
    assert header.startswith("t [s],x [m],y [m],heading [rad],speed [m/s],speed_kmh [km/h],")
    last = channel_infos()[-1]
    assert header.endswith("," + (f"{last.name} [{last.unit}]" if last.unit else last.name))


def compile_and_replay(name, **kw):
    from physics.presets import scripts_dir

    return replay([compile_script(load_script(scripts_dir() / name), **kw)])[0]


def test_csv_rows_follow_the_dt_override():
    result = compile_and_replay("clutch_coast.toml", dt=0.01)
    header, values = parse_csv(result.csv_text())
    assert len(values) == 801
    assert np.array_equal(values[:, header.index("t")], np.arange(801) * 0.01)


def test_csv_of_extreme_values_round_trips(tmp_path):
    sim = Simulation(load_preset("sedan").params)
    telemetry = sim.step(Inputs.from_keys(1, {"throttle"}))
    log = TelemetryLog("m", 1, capacity=1)
    specials = [-0.0, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, -1 / 3, 1e-7, 123456789.123456789]
    for value in specials:
        frame = telemetry.copy()
        frame.records["rpm"] = value
        log.record(frame)
    path = log.write_csv(tmp_path / "x.csv")
    header, values = parse_csv(path.read_text(encoding="utf-8"))
    rpm = values[:, header.index("rpm")]
    assert rpm.tobytes() == np.array(specials).tobytes()
    assert [p.name for p in tmp_path.iterdir()] == ["x.csv"]


def test_truncated_log_exports_the_frames_it_kept():
    sim = Simulation(load_preset("teaching").params)
    log = TelemetryLog("m", 1, capacity=4)
    for _ in range(10):
        log.record(sim.step(Inputs.from_keys(1, {"throttle"})))
    kept = log.csv_text(0, 6)
    log.truncate(6)
    assert log.frames == 6 and log.csv_text() == kept
    assert len(kept.splitlines()) == 7


# -- the command -------------------------------------------------------------------------------------


def test_cli_csv_of_one_script(run_cli, tmp_path, shipped_alone):
    target = tmp_path / "out.csv"
    done = run_cli("replay", "presets/scripts/clutch_coast.toml", "--csv", target)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    # another process gives the same telemetry, bit for bit
    assert_csv_is_the_telemetry(target.read_text(encoding="utf-8"), by_name(shipped_alone, "clutch-coast"))
    assert target.read_text(encoding="utf-8") == by_name(shipped_alone, "clutch-coast").csv_text()


def test_cli_csv_of_several_scripts_one_file_each(run_cli, tmp_path, shipped_alone):
    target = tmp_path / "runs.csv"
    done = run_cli("replay", "presets/scripts/clutch_coast.toml", "presets/scripts/parking_full_lock.toml",
                   "--csv", target)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.clutch-coast.csv", "runs.parking-full-lock.csv"]
    for name in ("clutch-coast", "parking-full-lock"):
        text = (tmp_path / f"runs.{name}.csv").read_text(encoding="utf-8")
        assert_csv_is_the_telemetry(text, by_name(shipped_alone, name))


def test_cli_csv_of_scripts_of_one_name_each_file_named_for_its_own_script(run_cli, tmp_path):
    """Scripts named "t1", "t1" and "t1-2": the second "t1" was written to runs.t1-2.csv, and the script named "t1-2"
    to runs.t1-2-2.csv. A name made unique never takes another script's own, and stderr says which file is whose."""
    text = SLASHED.replace('"left/right"', '"{}"')
    for file, name in (("a", "t1"), ("b", "t1"), ("c", "t1-2")):
        (tmp_path / f"{file}.toml").write_text(text.format(name), encoding="utf-8")
    (tmp_path / "b.toml").write_text(text.format("t1").replace('keys = ["throttle"]', 'keys = ["brake"]'),
                                     encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    done = run_cli("replay", *(tmp_path / f"{f}.toml" for f in "abc"), "--csv", out / "runs.csv")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["runs.t1-2.csv", "runs.t1-3.csv", "runs.t1.csv"]
    said = [line for line in done.stderr.splitlines() if line.startswith("csv: ")]
    assert said == [f"csv: {out / 'runs.t1.csv'} <- t1 ({tmp_path / 'a.toml'})",
                    f"csv: {out / 'runs.t1-3.csv'} <- t1 ({tmp_path / 'b.toml'})",
                    f"csv: {out / 'runs.t1-2.csv'} <- t1-2 ({tmp_path / 'c.toml'})"]
    braked = parse_csv((out / "runs.t1-3.csv").read_text(encoding="utf-8"))
    assert braked[1][:, braked[0].index("brake")].max() == 1.0  # b.toml's run, the one that brakes
    driven = parse_csv((out / "runs.t1-2.csv").read_text(encoding="utf-8"))
    assert driven[1][:, driven[0].index("brake")].max() == 0.0


def test_unique_names_never_take_another_names_own():
    assert unique_names(["t1", "t1", "t1-2"]) == ["t1", "t1-3", "t1-2"]
    assert unique_names(["a", "a", "a"]) == ["a", "a-2", "a-3"]
    assert unique_names(["a-2", "a", "a"]) == ["a-2", "a", "a-3"]
    assert unique_names([]) == []


SLASHED = """[script]
name = "left/right"
preset = "sedan"
duration = 1.0

[[hold]]
keys = ["throttle"]
from = 0.0
to = 1.0
"""


def test_cli_csv_of_a_script_whose_name_has_a_slash(run_cli, tmp_path):
    (tmp_path / "slashed.toml").write_text(SLASHED, encoding="utf-8")
    done = run_cli("replay", tmp_path / "slashed.toml", "presets/scripts/clutch_coast.toml",
                   "--csv", tmp_path / "out.csv")
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 2)
    if done.returncode == 2:
        assert done.stderr.startswith("carbench: ") and done.stderr.count("\n") == 1


def test_cli_csv_of_two_scripts_with_one_name(run_cli, tmp_path):
    original = (tmp_path / "a.toml")
    original.write_text(SLASHED.replace("left/right", "same"), encoding="utf-8")
    (tmp_path / "b.toml").write_text(SLASHED.replace("left/right", "same").replace("to = 1.0", "to = 0.5"),
                                     encoding="utf-8")
    out = tmp_path / "csv"
    out.mkdir()
    done = run_cli("replay", tmp_path / "a.toml", tmp_path / "b.toml", "--csv", out / "runs.csv")
    assert done.returncode == 0, done.stderr
    assert len(list(out.iterdir())) == 2


def test_a_folder_that_refuses_the_staged_csv_names_the_option(tmp_path, monkeypatch, capsys):
    # The CSV is written beside its target under a hidden name first; a folder that refuses that file (as root
    # passes every permission check, /sys and /proc refuse anyway) is said as --csv's, not as the hidden name's.
    import errno

    from workbench.cli import main
    from workbench.output import files

    def refuse(self, target):
        raise PermissionError(errno.EACCES, "Permission denied", str(target.parent / f".{target.name}.x.staged"))

    monkeypatch.setattr(files.StagedOutputs, "file", refuse)
    target = tmp_path / "out.csv"
    assert main(["replay", "presets/scripts/clutch_coast.toml", "--csv", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"carbench: --csv: cannot write {target}: Permission denied\n", err
    assert list(tmp_path.iterdir()) == []
