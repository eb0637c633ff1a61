"""More hostile use of the command line and of files: each case broke a promise of the README before its fix.

In-process calls and short scripts only (the suite is at the edge of its time budget).
"""

from __future__ import annotations

import json
import math
import os
import signal

import pytest
from cli_calls import run, snapshot

ANGLES = ('[script]\nname = "angles"\npreset = "sedan"\nduration = 1.0\n'
          '[[hold]]\nkeys = ["throttle", "left"]\nfrom = 0.0\nto = 1.0\n'
          '[[expect]]\nchannel = "steer"\nat = 0.5\nmin = 0.01\n'
          '[[measure]]\nname = "yaw"\nchannel = "yaw_rate"\nfrom = 0.0\nto = 1.0\nreduce = "max"\n'
          '[[measure]]\nname = "turned"\nchannel = "steer"\nfrom = 0.0\nto = 1.0\nfirst_time_above = 0.01\n')


# -- replay --json in display units ---------------------------------------------------------------------------------

def test_replay_json_gives_values_in_display_units_as_the_table_does(tmp_path, capsys):
    """--json gave the steer's bound and measured value in radians (0.01, 0.55) under "unit": "rad" where the table
    and every other output (sweep --json, compare --json, the report) show degrees."""
    script = tmp_path / "angles.toml"
    script.write_text(ANGLES, encoding="utf-8")
    code, out, err = run(["replay", str(script), "--json"], capsys)
    assert code == 0, err
    (doc,) = json.loads(out)["scripts"]
    (expect,) = doc["expectations"]
    assert expect["unit"] == "deg" and expect["min"] == pytest.approx(math.degrees(0.01))
    assert expect["measured"] > 1.0  # degrees: full lock's share after half a second, far above 1 rad's worth
    yaw, turned = doc["measures"]
    assert yaw["unit"] == "deg/s" and yaw["value"] > 5.0
    assert turned["unit"] == "s" and turned["threshold"] == pytest.approx(math.degrees(0.01))
    assert turned["threshold_unit"] == "deg"
    code, table, err = run(["replay", str(script)], capsys)
    assert f"{expect['measured']:.6g} deg" in table and f"{yaw['value']:.6g} deg/s" in table
    assert "first time above 0.572958 deg" in table  # the table's threshold in degrees too


# -- file names: a backslash typed in one and a byte that is not UTF-8 ----------------------------------------------

SHORT = ('[script]\nname = "n"\npreset = "teaching"\nduration = 0.1\n'
         '[[expect]]\nchannel = "speed"\nat = 0.05\nmax = 1.0\n')


def test_a_backslash_in_a_file_name_is_told_from_a_byte_that_is_not_utf8(tmp_path, capsys):
    """printable gave "sk\\xe9.toml" both for a name with the four characters \\xe9 typed in it and for one with the
    byte 0xE9: the JSON, the MCAP's metadata and a report could not tell the two files apart."""
    from workbench.names import printable

    typed, byte = str(tmp_path / "sk\\xe9.toml"), os.fsdecode(bytes(tmp_path) + b"/sk\xe9.toml")
    assert printable(typed) != printable(byte)
    assert printable(byte).endswith("sk\\xe9.toml") and printable(typed).endswith("sk\\\\xe9.toml")
    for name in (typed, byte):
        with open(name, "w", encoding="utf-8") as f:
            f.write(SHORT)
    code, out, err = run(["replay", typed, byte, "--json"], capsys)
    assert code == 0, err
    files = [s["file"] for s in json.loads(out)["scripts"]]
    assert files[0] != files[1] and files[0].endswith("sk\\\\xe9.toml") and files[1].endswith("sk\\xe9.toml")


def test_a_file_s_own_backslashes_are_written_as_they_are(tmp_path):
    """A whole file's text (a preset's TOML, a report's page) keeps its backslashes: only names are escaped."""
    from workbench.output.files import atomic_write_text

    path = atomic_write_text(tmp_path / "a.toml", 'name = "a\\\\b"\n')
    assert path.read_text(encoding="utf-8") == 'name = "a\\\\b"\n'


# -- signals and what a killed run left behind ----------------------------------------------------------------------

@pytest.fixture
def quit_caught():
    """SIGQUIT raises LookupError where carbench does not take it itself (its default would dump this process's core)."""
    def caught(signum, frame):
        raise LookupError("SIGQUIT reached the test's own handler")

    saved = signal.signal(signal.SIGQUIT, caught)
    yield
    signal.signal(signal.SIGQUIT, saved)


def test_sigquit_mid_run_removes_what_was_staged_and_exits_131(tmp_path, capsys, monkeypatch, quit_caught):
    """Ctrl-\\ (SIGQUIT) killed the command with a core dump, leaving its staged CSV beside the target; it now ends
    as SIGTERM does: nothing left behind, one line, exit 128 + 3."""
    import workbench.output.report as report

    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.csv").write_text("the user's own\n", encoding="utf-8")
    before = snapshot(out)

    def table(results):
        signal.raise_signal(signal.SIGQUIT)  # the CSV is staged beside its target by now
        return ""

    monkeypatch.setattr(report, "table", table)
    code, stdout, err = run(["replay", str(script), "--csv", str(out / "run.csv")], capsys)
    assert code == 128 + signal.SIGQUIT, err
    assert err.count("\n") == 1 and err.startswith("carbench: ") and f"signal {int(signal.SIGQUIT)}" in err
    assert snapshot(out) == before and stdout == ""


def test_what_a_killed_run_staged_is_removed_at_the_next_write_of_the_same_target(tmp_path):
    """SIGKILL cannot be caught: a run killed mid-write left ".run.csv.x1y2.tmp" beside its target for good. Carbench's
    staged names now carry the writer's process id, and the next write of the same target removes what a process that
    no longer runs staged for it (and puts back a file it had set aside but not yet replaced); a running process's
    staged files, other targets' and other programs' hidden files stay."""
    import subprocess
    import sys

    from workbench.output.files import StagedOutputs, _stage_name, atomic_write_text

    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()  # a process id that no longer runs
    own = _stage_name("run.csv", ".tmp")
    dead = own.replace(f".cb{os.getpid()}-", f".cb{gone.pid}-")
    assert dead != own
    (tmp_path / dead).write_text("half", encoding="utf-8")
    (tmp_path / dead.replace(".tmp", ".staged")).mkdir()  # a staged folder of a report, say
    (tmp_path / own).write_text("a live writer's", encoding="utf-8")
    other = dead.replace("run.csv", "other.csv")
    (tmp_path / other).write_text("another target's", encoding="utf-8")
    (tmp_path / ".run.csv.swp").write_text("an editor's", encoding="utf-8")
    tag = own.split("-")[1][:8]
    elsewhere = dead.replace(f"-{tag}", "-" + ("00000000" if tag != "00000000" else "11111111"))
    assert elsewhere != dead
    (tmp_path / elsewhere).write_text("another machine's", encoding="utf-8")  # its process ids are not ours
    atomic_write_text(tmp_path / "run.csv", "new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["run.csv", own, other, ".run.csv.swp", elsewhere])
    # a file set aside by a commit that was killed before its replacement moved in comes back
    aside = dead.replace(".tmp", ".replaced").replace("run.csv", "kept.csv")
    (tmp_path / aside).write_text("the user's", encoding="utf-8")
    with StagedOutputs() as staged:
        staged.file(tmp_path / "kept.csv")
    assert (tmp_path / "kept.csv").read_text(encoding="utf-8") == "the user's" and not (tmp_path / aside).exists()


def test_a_set_aside_file_put_back_never_replaces_one_written_meanwhile(tmp_path, monkeypatch):
    # The put-back checked that the target was missing, then renamed over it: a file written between the two was
    # lost to the old copy. It is linked into place now, which fails where a file exists.
    import subprocess
    import sys

    from workbench.output import files

    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    aside = files._stage_name("kept.csv", ".replaced").replace(f".cb{os.getpid()}-", f".cb{gone.pid}-")
    (tmp_path / aside).write_text("the old copy", encoding="utf-8")
    (tmp_path / "kept.csv").write_text("written meanwhile", encoding="utf-8")
    monkeypatch.setattr(os.path, "lexists", lambda path: False)  # the file came after any check could see it
    files.clean_stale(tmp_path, "kept.csv")
    assert (tmp_path / "kept.csv").read_text(encoding="utf-8") == "written meanwhile"
    assert not (tmp_path / aside).exists()  # the stale copy goes


def test_machines_of_one_name_get_different_tags(monkeypatch):
    # The tag was 16 bits of the host name and the pid namespace's number, which is the same on every Linux host's
    # root namespace: two machines of one name sharing a folder took each other's live writers for dead ones.
    import builtins
    import io

    from workbench.output import files

    real_open = builtins.open
    tags = []
    for boot in ("0f5e6a1c-0000-4000-8000-000000000001", "0f5e6a1c-0000-4000-8000-000000000002"):
        def fake_open(path, *args, boot=boot, **kwargs):
            if str(path) == "/proc/sys/kernel/random/boot_id":
                return io.StringIO(boot + "\n")
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", fake_open)
        tags.append(files._host_tag())
    monkeypatch.setattr(builtins, "open", real_open)
    assert tags[0] != tags[1] and all(len(t) == 8 for t in tags)


# -- a local Dask cluster under a low limit of open files --------------------------------------------------------------

def _limit(monkeypatch, soft, hard):
    import resource

    set_to = []
    monkeypatch.setattr(resource, "getrlimit", lambda what: (soft, hard))
    monkeypatch.setattr(resource, "setrlimit", lambda what, limits: set_to.append(limits))
    return set_to


def test_too_few_open_files_for_the_local_cluster_is_one_line_before_anything_runs(tmp_path, capsys, monkeypatch):
    """With ``ulimit -n 32`` a sweep on two local workers printed a page of Dask tracebacks (the nannies' "Too many open
    files"), then "the scheduler and every worker need this carbench installed"; with 4 workers and 60 it hung printing
    them. The limit is now checked before anything runs."""
    pytest.importorskip("distributed")
    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    _limit(monkeypatch, 32, 32)
    for argv in (["sweep", str(script), "--param", "body.mass=1400,1500", "--workers", "2", "--out",
                  str(tmp_path / "o")],
                 ["hunt", "--preset", "teaching", "--cars", "2", "--seconds", "1", "--workers", "2", "--out",
                  str(tmp_path / "h")]):
        before = snapshot(tmp_path)
        code, out, err = run(argv, capsys)
        assert code == 2 and out == "", err
        assert err.count("\n") == 1 and err.startswith("carbench: --workers 2: ") and "ulimit -n" in err, err
        assert "48 open files" in err and "may open 32" in err
        assert snapshot(tmp_path) == before


def test_a_soft_limit_of_open_files_below_the_hard_one_is_raised_for_the_local_cluster(monkeypatch):
    pytest.importorskip("distributed")
    from workbench.runs import cluster

    raised = _limit(monkeypatch, 32, 4096)
    cluster.check_options(2, None)
    assert raised and raised[-1][0] >= cluster.open_files_needed(2) and raised[-1][1] == 4096
    raised = _limit(monkeypatch, 32, 4096)
    cluster.check_options(1, None)  # one worker runs clean at 32
    assert raised == []


def test_a_soft_limit_that_cannot_be_raised_is_said_as_it_is(monkeypatch):
    # setrlimit refused: the line said the process "may open 4096", its hard limit, above what the cluster needs.
    pytest.importorskip("distributed")
    import resource

    from workbench.runs import cluster

    _limit(monkeypatch, 32, 4096)

    def refuse(what, limits):
        raise ValueError("not allowed")

    monkeypatch.setattr(resource, "setrlimit", refuse)
    with pytest.raises(cluster.ClusterError) as refused:
        cluster.check_options(2, None)
    assert "may open 32 " in str(refused.value) and "4096" not in str(refused.value)


# -- output folders among the system's own files ---------------------------------------------------------------------

@pytest.mark.parametrize("folder", ["/proc", "/proc/carbench-report", "/sys/kernel"])
def test_an_output_folder_in_proc_or_sys_is_refused_before_the_run(folder, tmp_path, capsys, monkeypatch):
    """As root, ``--report /proc`` passed the check (os.access says root may write anywhere), ran the whole replay and
    only then failed to stage the report: "cannot write into /proc: No such file or directory". An output file there
    was already refused before the run; an output folder is now too."""
    import workbench.runs.replay as replay

    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    monkeypatch.setattr(replay, "replay", lambda *a, **k: pytest.fail("the run started"))
    code, out, err = run(["replay", str(script), "--report", folder], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"carbench: --report {folder}: ") and "system" in err, err


# -- bounds whose display unit overflows -----------------------------------------------------------------------------

@pytest.mark.parametrize("entry", [
    '[[expect]]\nchannel = "heading"\nat = 0.05\nmin = 1e308\n',
    '[[expect]]\nchannel = "yaw_rate"\nfrom = 0.0\nto = 0.05\nmax = -1e301\n',
    '[[measure]]\nname = "m"\nchannel = "steer"\nfrom = 0.0\nto = 0.05\nfirst_time_below = -1e308\n',
])
def test_a_bound_that_overflows_in_its_display_unit_is_refused(entry, tmp_path, capsys):
    """min = 1e308 on an angle was taken: the table said ">= inf deg" and --json wrote "min": Infinity, which is not
    JSON (a strict reader refuses the whole document)."""
    script = tmp_path / "s.toml"
    script.write_text(SHORT.replace("teaching", "sedan").split("[[expect]]")[0] + entry, encoding="utf-8")
    code, out, err = run(["replay", str(script), "--json"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    assert "s.toml" in err and "#1" in err and "1e+300" in err and "overflow" in err, err


# -- a file swapped for a FIFO between its check and its read ------------------------------------------------------

@pytest.fixture
def alarm():
    """A read that blocks for good ends the test after two seconds instead (TimeoutError)."""
    def ring(signum, frame):
        raise TimeoutError("the read blocked")

    saved = signal.signal(signal.SIGALRM, ring)
    signal.alarm(2)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, saved)


@pytest.mark.parametrize("what", ["script", "preset", "csv"])
def test_a_file_swapped_for_a_fifo_after_its_check_is_refused_not_waited_on(what, tmp_path, capsys, monkeypatch,
                                                                           alarm):
    """The file was checked (a regular file, not too large) and then opened by its name: one swapped for a FIFO in
    between (an editor's save, another program) blocked the command for good, waiting for a writer."""
    import workbench.scripts.limits as limits

    script, car = tmp_path / "s.toml", tmp_path / "car.toml"
    script.write_text(SHORT, encoding="utf-8")
    from physics.presets import cars_dir

    car.write_bytes((cars_dir() / "teaching.toml").read_bytes())
    argv = {"script": ["replay", str(script)], "preset": ["replay", str(script), "--preset", str(car)],
            "csv": ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]}[what]
    if what == "csv":
        for name in ("a.csv", "b.csv"):
            assert run(["replay", str(script), "--csv", str(tmp_path / name)], capsys)[0] == 0
    victim = {"script": script, "preset": car, "csv": tmp_path / "b.csv"}[what]
    checked = limits.check_regular_file

    def check_then_swap(path, *args, **kwargs):
        out = checked(path, *args, **kwargs)
        if os.path.samefile(path, victim):
            os.unlink(victim)
            os.mkfifo(victim)
        return out

    monkeypatch.setattr(limits, "check_regular_file", check_then_swap)
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    assert str(victim) in err and "FIFO" in err, err


# -- a change of the car's model names the entry the user wrote --------------------------------------------------------

@pytest.mark.parametrize("how", ["script", "compare", "manoeuvre"])
def test_changing_the_model_kind_is_refused_naming_that_entry(how, tmp_path, capsys):
    """``--vs-set model.kind="kinematic"`` said only "model.blend_low: not used by a kinematic car": a parameter the user
    never typed, the entry at fault not named (a script's [[set]] params and manoeuvre --set the same)."""
    script = tmp_path / "s.toml"
    text = SHORT.replace("teaching", "sedan")
    if how == "script":
        text += '[[set]]\nat = 0.0\nparams = { "model.kind" = "kinematic" }\n'
    script.write_text(text, encoding="utf-8")
    argv = {"script": ["replay", str(script)],
            "compare": ["compare", str(script), "--vs-set", 'model.kind="kinematic"'],
            "manoeuvre": ["manoeuvre", "iso4138", "--set", 'model.kind="kinematic"']}[how]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "model.kind = 'kinematic'" in err and "model.blend_low" in err, err


def test_a_hunt_shorter_than_a_frame_is_refused(tmp_path, capsys):
    """``hunt --seconds 1e-9`` ran every car for no frame at all and said "no monitor fired" (exit 0): a clean bill
    for nothing driven."""
    code, out, err = run(["hunt", "--preset", "teaching", "--cars", "1", "--seconds", "1e-9", "--out",
                          str(tmp_path / "h")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--seconds 1e-09" in err and "frame" in err, err


def test_dask_s_large_graph_warning_does_not_reach_the_user(monkeypatch):
    """Every --workers sweep of a long script printed Dask's five-line "UserWarning: Sending large graph of size 18.55
    MiB. This may cause some slowdown. Consider loading the data with Dask directly ..." beside carbench's lines. (A
    stand-in for Dask here: a real local cluster takes seconds to start.)"""
    import contextlib
    import types
    import warnings

    from workbench.runs import cluster

    class Client:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def map(self, fn, chunks, pure=True):
            warnings.warn("Sending large graph of size 18.55 MiB.\nThis may cause some slowdown.", UserWarning,
                          stacklevel=2)
            return [fn(c) for c in chunks]

        def gather(self, futures):
            return futures

    fake = types.SimpleNamespace(LocalCluster=lambda **kw: contextlib.nullcontext(), Client=Client)
    monkeypatch.setattr(cluster, "distributed", lambda: fake)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with cluster.mapper(workers=1) as run_map:
            assert run_map(lambda x: 2 * x, [1, 2, 3]) == [2, 4, 6]
    assert not [w for w in said if "large graph" in str(w.message)], [str(w.message) for w in said]


def test_a_signal_while_the_local_cluster_starts_closes_it_quietly(monkeypatch, capfd):
    """SIGTERM while the workers started (the first second or two of ``sweep --workers 2``) closed the half-started
    cluster with Dask's own words on the way ("distributed.nanny - WARNING - Restarting worker") before carbench's one
    line: the quiet close was only for a signal once the cluster ran. (A stand-in for Dask here.)"""
    import types

    from workbench.runs import cluster
    from workbench.signals import Terminated

    class LocalCluster:
        def __init__(self, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            os.write(2, b"distributed.nanny - WARNING - Restarting worker\n")  # as Dask's loggers write
            return False

    def client(cluster_):
        raise Terminated(signal.SIGTERM)  # the signal lands while the client connects

    fake = types.SimpleNamespace(LocalCluster=LocalCluster, Client=client)
    monkeypatch.setattr(cluster, "distributed", lambda: fake)
    with pytest.raises(Terminated):
        with cluster.mapper(workers=1):
            pytest.fail("the block ran")
    assert "Restarting worker" not in capfd.readouterr().err


@pytest.mark.parametrize("argv", [["compare", "S", "--vs-set", "body.mass=1e400"],
                                  ["manoeuvre", "acceleration", "--set", "body.mass=-1e999"]])
def test_a_number_beyond_a_float_on_the_command_line_is_said_as_typed(argv, tmp_path, capsys):
    """``--vs-set body.mass=1e400`` said "body.mass = inf: inf is not a finite number": a value the user never typed."""
    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    typed = argv[-1]
    code, out, err = run([str(script) if a == "S" else a for a in argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert typed in err and "inf" not in err, err


@pytest.mark.parametrize("option", ["--csv", "--report"])
def test_an_output_inside_a_file_says_the_file_is_not_a_folder(option, tmp_path, capsys):
    """``--csv s.toml/x.csv`` said "the folder s.toml does not exist", beside the script the user had just named."""
    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    code, out, err = run(["replay", str(script), option, str(script / "x")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{script} is a file, not a folder" in err, err


def test_a_sweep_into_carbench_s_shipped_presets_is_refused(tmp_path, capsys):
    """``sweep --out presets/cars`` wrote sweep.csv and its chart list among the shipped car presets, where a report's
    folder and the hunt's were already refused."""
    from physics.presets import cars_dir

    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    before = snapshot(cars_dir())
    code, out, err = run(["sweep", str(script), "--param", "body.mass=1400,1500", "--out", str(cars_dir())], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "shipped presets" in err, err
    assert snapshot(cars_dir()) == before


@pytest.mark.parametrize("argv", [["replay", "S", "--csv", "P/scripts/zz.toml"], ["replay", "S", "--mcap", "P/x.mcap"],
                                  ["compare", "S", "--vs-dt", "0.01", "--csv", "P/scripts/c.toml"]])
def test_an_output_file_among_the_shipped_presets_is_refused(argv, tmp_path, capsys):
    """``replay --csv presets/scripts/zz.toml`` wrote a CSV among the shipped scripts: ``carbench presets`` listed it as
    unreadable and ``replay zz`` refused it as TOML."""
    from physics.presets import presets_root

    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    before = snapshot(presets_root())
    argv = [str(script) if a == "S" else a.replace("P/", f"{presets_root()}/") for a in argv]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "shipped presets" in err, err
    assert snapshot(presets_root()) == before
