"""Writing files: atomic writes, presets written back load equal, the TOML writer's strings and values."""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path

import pytest

from physics import PresetError, load_preset, parse_preset, preset_names
from workbench.output.files import (
    OutputPathError,
    atomic_write_text,
    atomic_writer,
    check_output_dir,
    check_output_file,
)
from workbench.output.preset_io import preset_text, save_preset
from workbench.scripts import toml_writer
from workbench.scripts.format import Script, parse_script


def names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_a_second_run_into_the_same_folder_merges_its_subfolders(tmp_path):
    # What `carbench hunt --out D` does twice: D/report/ exists and holds the first run's files.
    from workbench.output.files import StagedOutputs

    out = tmp_path / "out"
    for run, files in enumerate([("a.toml", "b.toml"), ("a.toml", "c.toml")]):
        with StagedOutputs() as staged:
            folder = staged.folder(out)
            (folder / "report").mkdir()
            for name in files:
                (folder / name).write_text(f"run {run}")
                (folder / "report" / f"{name}.png").write_text(f"run {run}")
            staged.commit()
    assert names(out) == ["a.toml", "b.toml", "c.toml", "report"]
    assert names(out / "report") == ["a.toml.png", "b.toml.png", "c.toml.png"]
    assert (out / "a.toml").read_text() == "run 1" and (out / "report" / "a.toml.png").read_text() == "run 1"
    assert (out / "b.toml").read_text() == "run 0"  # the first run's other files stay


def test_a_folder_another_run_made_meanwhile_is_merged_into(tmp_path):
    # Two runs into a new --report folder at once: the second's staged folder was renamed onto the folder the first
    # had made by then, and the move failed after the whole run ("Is a directory", with no path).
    from workbench.output.files import StagedOutputs

    out = tmp_path / "rep"
    with StagedOutputs() as staged:
        folder = staged.folder(out)  # new when this run began
        (folder / "b.png").write_text("second run")
        (folder / "index.html").write_text("second run")
        out.mkdir()  # the other run's, finished first
        (out / "a.png").write_text("first run")
        (out / "index.html").write_text("first run")
        staged.commit()
    assert names(out) == ["a.png", "b.png", "index.html"]
    assert (out / "index.html").read_text() == "second run"
    assert names(tmp_path) == ["rep"]  # no staged folder left beside it


# -- atomic_write_text --------------------------------------------------------------------------------


def test_atomic_write_creates_and_replaces(tmp_path):
    target = tmp_path / "a.txt"
    assert atomic_write_text(target, "one\n") == target
    assert target.read_text(encoding="utf-8") == "one\n"
    atomic_write_text(target, "two\r\nlines \u00e9\n")
    assert target.read_bytes() == "two\r\nlines \u00e9\n".encode("utf-8")  # written as given, in UTF-8
    assert names(tmp_path) == ["a.txt"]


def test_atomic_write_never_makes_folders(tmp_path):
    target = tmp_path / "new" / "deeper" / "a.txt"
    with pytest.raises(FileNotFoundError):
        atomic_write_text(str(target), "x")
    assert names(tmp_path) == []


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_follows_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_replaced_file_keeps_its_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new")
    assert target.stat().st_mode & 0o777 == 0o640 and target.read_text() == "new"


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_staged_output_that_replaces_a_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path, umask):
    """What `replay --csv` and `compare --csv` write: a private file stayed private only through atomic_write_text;
    a staged output made it 0644 again under umask 022."""
    from workbench.output.files import StagedOutputs

    private, shared = tmp_path / "private.csv", tmp_path / "folder"
    private.write_text("old")
    private.chmod(0o600)
    shared.mkdir()
    (shared / "a.png").write_text("old")
    (shared / "a.png").chmod(0o640)
    old = os.umask(umask)
    try:
        with StagedOutputs() as staged:
            staged.file(private).write_text("new")
            staged.file(tmp_path / "new.csv").write_text("new")
            folder = staged.folder(shared)
            (folder / "a.png").write_text("new")
            (folder / "b.png").write_text("new")
            staged.commit()
    finally:
        os.umask(old)
    assert private.read_text() == "new" and private.stat().st_mode & 0o777 == 0o600
    # through a link, the mode of the file it points to (as atomic_write_text)
    pointed, link = tmp_path / "pointed.csv", tmp_path / "link.csv"
    pointed.write_text("old")
    pointed.chmod(0o640)
    link.symlink_to(pointed)
    with StagedOutputs() as staged:
        staged.file(link).write_text("new")
        staged.commit()
    assert link.stat().st_mode & 0o777 == 0o640
    assert link.is_symlink() and pointed.read_text() == "new"  # written through the link, which stays
    assert (shared / "a.png").read_text() == "new" and (shared / "a.png").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "new.csv").stat().st_mode & 0o777 == 0o666 & ~umask
    assert (shared / "b.png").stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_output_at_a_link_is_written_through_it_and_the_link_stays(tmp_path, capsys):
    """An output named by a link replaced the link with a file (--csv /dev/stdout replaced the system's own link);
    it is written into the file the link leads to, as a shell's > does, and a link into /dev or /proc is refused."""
    from workbench.cli import main

    (tmp_path / "other").mkdir()
    real, elsewhere = tmp_path / "real.csv", tmp_path / "other" / "target.mcap"
    real.write_text("the user's")
    real.chmod(0o640)
    elsewhere.write_text("kept as a file")
    (tmp_path / "out.csv").symlink_to("real.csv")
    (tmp_path / "out.mcap").symlink_to(elsewhere)
    assert main(["replay", "clutch_coast", "--csv", str(tmp_path / "out.csv"), "--mcap", str(tmp_path / "out.mcap")]) == 0
    assert (tmp_path / "out.csv").is_symlink() and (tmp_path / "out.mcap").is_symlink()
    assert real.read_text().startswith("t [s],") and real.stat().st_mode & 0o777 == 0o640
    assert elsewhere.read_bytes().startswith(b"\x89MCAP")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "out.csv", "out.mcap", "real.csv"]  # nothing staged
    assert [p.name for p in (tmp_path / "other").iterdir()] == ["target.mcap"]
    atomic_write_text(tmp_path / "out.csv", "again")
    assert (tmp_path / "out.csv").is_symlink() and real.read_text() == "again"
    capsys.readouterr()
    for target in ("/dev/null", "/proc/self/status", "/dev/stdout"):
        link = tmp_path / f"to-{Path(target).name}.csv"
        link.symlink_to(target)
        with pytest.raises(OutputPathError, match="not a regular file"):
            check_output_file(link, "--csv")
        assert link.is_symlink()
    with pytest.raises(OutputPathError, match="not a regular file"):  # a terminal or a pipe, or a file via /proc
        check_output_file("/dev/stdout", "--csv")
    # a folder that is a link into the system's files is seen through too
    (tmp_path / "proc-link").symlink_to("/proc/self")
    with pytest.raises(OutputPathError, match=r"proc-link \(which leads to /proc/[0-9]+\) is among the system's own files"):
        check_output_file(tmp_path / "proc-link" / "new.csv", "--csv")
    # /dev's folders of ordinary files (a tmpfs) take outputs as any other
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        assert check_output_file("/dev/shm/carbench-test-output.csv", "--csv") == Path("/dev/shm/carbench-test-output.csv")
    # the file a link leads to is staged beside itself under its own name: too long a name is refused before the run
    long_name = tmp_path / ("x" * 240 + ".csv")
    long_name.write_text("")
    (tmp_path / "short.csv").symlink_to(long_name)
    with pytest.raises(OutputPathError, match="the name of the file it links to .* is longer than"):
        check_output_file(tmp_path / "short.csv", "--csv")
    # a link into a folder that cannot be written is refused before the run, naming where it leads
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "f.csv").write_text("x")
    (tmp_path / "to-locked.csv").symlink_to(locked / "f.csv")
    locked.chmod(0o500)
    try:
        if not os.access(locked, os.W_OK):  # root may write anywhere
            with pytest.raises(OutputPathError, match="is a link to"):
                check_output_file(tmp_path / "to-locked.csv", "--csv")
    finally:
        locked.chmod(0o700)


def test_output_paths_are_checked(tmp_path):
    script = tmp_path / "s.toml"
    script.write_text("")
    assert check_output_file(tmp_path / "x.csv", "--csv") == tmp_path / "x.csv"
    for bad, reason in [("", "empty"), (tmp_path, "is a directory"), (tmp_path / "no" / "x.csv", "does not exist"),
                        (script, "is one of the inputs")]:
        with pytest.raises(OutputPathError, match=reason):
            check_output_file(bad, "--csv", inputs=[script])
    assert check_output_dir(tmp_path / "new", "--out") == tmp_path / "new"
    with pytest.raises(OutputPathError, match="does not exist"):
        check_output_dir(tmp_path / "no" / "new", "--out")
    with pytest.raises(OutputPathError, match="not a folder"):
        check_output_dir(script, "--out")


@pytest.mark.parametrize("what", ["link to a folder", "file"])
def test_a_subfolder_the_command_writes_is_checked_before_the_run(tmp_path, what):
    """`hunt --out D` writes D/report/: a link there (to a folder elsewhere) passed the check, and the hunt failed only
    when its outputs moved in, after the whole run and its summary on stdout."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    if what == "file":
        (out / "report").write_text("")
    else:
        (out / "report").symlink_to(elsewhere)
    with pytest.raises(OutputPathError, match="a link" if what != "file" else "not a folder"):
        check_output_dir(out, "--out", writes=lambda name: name == "report", folders=["report"])
    (out / "report").unlink()
    (out / "report").mkdir()
    assert check_output_dir(out, "--out", writes=lambda name: name == "report", folders=["report"]) == out


def test_an_output_name_too_long_for_its_staged_name_says_so(tmp_path):
    """A 250-byte name fits the file system (255) but not beside the staged name: the message says which limit."""
    for check, option in ((check_output_file, "--csv"), (check_output_dir, "--out")):
        with pytest.raises(OutputPathError, match="longer than 200 bytes .carbench keeps room"):
            check(tmp_path / ("a" * 246 + ".csv"), option)
        assert check(tmp_path / ("a" * 196 + ".csv"), option)


def test_atomic_write_to_a_relative_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    atomic_write_text("plain.txt", "x")
    assert names(tmp_path) == ["plain.txt"]


@pytest.mark.parametrize("broken", ["replace", "fsync"])
def test_atomic_write_failure_keeps_the_original_and_no_temp_file(tmp_path, monkeypatch, broken):
    target = tmp_path / "keep.txt"
    target.write_text("original", encoding="utf-8")

    def boom(*args, **kwargs):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, broken, boom)
    with pytest.raises(OSError, match="I/O error"):
        atomic_write_text(target, "replacement")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "original"
    assert names(tmp_path) == ["keep.txt"]


def test_atomic_write_of_text_that_cannot_be_encoded(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("original", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError), atomic_writer(target) as handle:
        handle.write("lone surrogate \ud800")
    assert target.read_text(encoding="utf-8") == "original"
    assert names(tmp_path) == ["keep.txt"]
    # the whole-text writer writes a file name's undecodable bytes escaped (an HTML report of such a script)
    atomic_write_text(target, "sk\udce9.toml, \ud800")
    assert target.read_text(encoding="utf-8") == "sk\\xe9.toml, \\ud800"


def test_atomic_write_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "keep.txt"
    target.write_text("original", encoding="utf-8")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "replacement")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "original" and names(tmp_path) == ["keep.txt"]


# -- presets written back ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", preset_names())
def test_saved_preset_reloads_equal(name, tmp_path):
    params = load_preset(name).params
    path = save_preset(params, tmp_path / f"{name}.toml", header=f"{name}, written back\nsecond line")
    assert names(tmp_path) == [f"{name}.toml"]
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"# {name}, written back\n# second line\n")
    assert parse_preset(text, str(path)) == params
    assert load_preset(path).params == params
    assert tomllib.loads(text) == params.to_document()


def test_all_five_presets_are_shipped():
    assert set(preset_names()) >= {"parking", "teaching", "f1tenth", "sedan", "classic"}


def test_edited_preset_round_trips(tmp_path):
    params = load_preset("manual003").params.with_values({"engine.peak_torque": 401.25, "gearbox.ratios": [3.3, 1.9],
                                                      "body.driven_axle": "all", "tyres.e": -0.5})
    path = save_preset(params, tmp_path / "edited.toml")
    assert load_preset(path).params == params
    assert "ratios = [3.3, 1.9]" in path.read_text()


def test_preset_text_never_writes_what_cannot_be_read(monkeypatch):
    params = load_preset("teaching").params
    monkeypatch.setattr(toml_writer, "dumps", lambda doc, header="": "[model]\nkind = 3\n")
    with pytest.raises(PresetError):
        preset_text(params)


# -- the TOML writer -------------------------------------------------------------------------------

STRINGS = [
    'with "double" quotes',
    "with 'single' quotes and ''' three",
    'three """ double quotes',
    "back\\slash and \\n not a newline",
    "trailing backslash \\",
    "new\nline and\r\ncrlf",
    "tab\there",
    "control \x00 \x01 \x1f \x7f",
    "caf\u00e9 \u00fc\u00df \u65e5\u672c\u8a9e \u2192 \u00a0nbsp",
    "\u2028 line separator",
    "",
    "# not a comment",
    "[not] a table = 1",
]


@pytest.mark.parametrize("text", STRINGS)
def test_strings_round_trip(text):
    doc = {"script": {"description": text}}
    assert tomllib.loads(toml_writer.dumps(doc)) == doc


@pytest.mark.parametrize("text", STRINGS[:6])
def test_strings_round_trip_through_a_script(text):
    s = Script(name=text or "x", preset="sedan", duration=1.0, description=text, source="<s>")
    assert parse_script(s.to_toml(), "<s>") == s


@pytest.mark.parametrize("text", ["car \U0001F697", "math \U0001D400"])
def test_strings_outside_the_bmp_round_trip(text):
    doc = {"script": {"description": text}}
    assert tomllib.loads(toml_writer.dumps(doc)) == doc


@pytest.mark.parametrize("key", ["engine.peak_torque", "with space", "caf\u00e9", 'q"uote', "", "bare_key-1"])
def test_keys_round_trip(key):
    doc = {"script": {"params": {key: 1.5}}}
    assert tomllib.loads(toml_writer.dumps(doc)) == doc


def test_bare_keys_stay_bare():
    assert toml_writer.key("bare_key-1") == "bare_key-1"
    assert toml_writer.key("engine.peak_torque") == '"engine.peak_torque"'


@pytest.mark.parametrize("number", [0.0, -0.0, 0.1, 1 / 3, 1e-300, 5e-324, 1.7976931348623157e308, 1e16, 123456.0,
                                    -2.5e-7, 1 / 120])
def test_floats_round_trip_exactly(number):
    text = toml_writer.dumps({"t": {"v": number}})
    back = tomllib.loads(text)["t"]["v"]
    assert isinstance(back, float)
    assert back == number and math.copysign(1.0, back) == math.copysign(1.0, number)


@pytest.mark.parametrize("number", [0, -1, 2**62, -(2**63)])
def test_ints_round_trip(number):
    back = tomllib.loads(toml_writer.dumps({"t": {"v": number}}))["t"]["v"]
    assert back == number and isinstance(back, int)


def test_other_values_round_trip():
    doc = {"a": {"yes": True, "no": False, "list": [1, 2.5, "x", True], "empty": [], "inline": {"k": 1, "k.2": [1.0]},
                 "none": {}}}
    assert tomllib.loads(toml_writer.dumps(doc)) == doc


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan])
def test_non_finite_floats_are_refused(number):
    with pytest.raises(ValueError):
        toml_writer.value(number)


def test_unwritable_values_are_refused():
    with pytest.raises(TypeError):
        toml_writer.value(None)
    with pytest.raises(TypeError):
        toml_writer.dumps({"a": 1})


def test_document_layout():
    text = toml_writer.dumps({"script": {"name": "x"}, "hold": [{"keys": ["a"]}, {"keys": ["b"]}]}, header="top")
    assert text == '# top\n\n[script]\nname = "x"\n\n[[hold]]\nkeys = ["a"]\n\n[[hold]]\nkeys = ["b"]\n'
    assert toml_writer.dumps({"a": {}}, header="one\n\nthree").startswith("# one\n#\n# three\n\n[a]\n")


def test_a_link_in_an_output_folder_under_a_name_the_command_writes_is_refused_not_replaced(tmp_path):
    # The outputs move into the folder by renames, which replace a link itself: a link named like a chart was lost
    # without a word (an output named on the command line is written through its link instead).
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "kept.png"
    elsewhere.write_bytes(b"the user's picture")
    (out / "margin.png").symlink_to(elsewhere)
    (out / "notes.png").write_bytes(b"a file the command does not write")
    with pytest.raises(OutputPathError, match=r"would replace margin.png inside it, which is a link \(to "):
        check_output_dir(out, "--out", writes=lambda name: name.endswith(".png") and name != "notes.png")
    assert (out / "margin.png").is_symlink() and elsewhere.read_bytes() == b"the user's picture"
    (out / "margin.png").unlink()
    (out / "margin.png").write_bytes(b"an earlier chart")  # a file of that name is replaced, as before
    assert check_output_dir(out, "--out", writes=lambda name: name.endswith(".png")) == out


def test_a_failed_commit_says_where_it_failed_by_the_name_the_user_gave(tmp_path):
    # "cannot move the outputs into place: Is a directory" named no path.
    import errno

    from workbench.output.files import StagedOutputs

    with StagedOutputs() as staged:
        tmp = staged.file(tmp_path / "out.csv")
        error = IsADirectoryError(errno.EISDIR, "Is a directory", str(tmp))
        assert staged.move_problem(error) == f"{tmp_path / 'out.csv'}: Is a directory"
        assert staged.move_problem(OSError(errno.ENOSPC, "No space left on device")) == "No space left on device"


def test_a_read_only_file_is_not_replaced_by_an_output_nor_inside_an_output_folder(tmp_path, monkeypatch, capsys):
    """A file made read-only (chmod 444) was replaced by `replay --csv` (the rename is the folder's to allow), where the
    shell and cp refuse to write it. As root, which may write any file, os.access is made to answer as for its owner."""
    from physics.presets import scripts_dir
    from workbench.cli import main

    keep = tmp_path / "keep.csv"
    keep.write_text("mine\n")
    keep.chmod(0o444)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "sweep.csv").write_text("mine too\n")
    (folder / "sweep.csv").chmod(0o444)
    if os.geteuid() == 0:
        real_access = os.access

        def access(path, mode, **kwargs):
            if mode == os.W_OK and os.path.isfile(path) and not os.stat(path).st_mode & 0o222:
                return False
            return real_access(path, mode, **kwargs)

        monkeypatch.setattr(os, "access", access)
    with pytest.raises(OutputPathError, match="keep.csv: the file is read-only"):
        check_output_file(keep, "--csv")
    with pytest.raises(OutputPathError, match="would write sweep.csv inside it, but .* the file is read-only"):
        check_output_dir(folder, "--out", writes=lambda name: name.endswith(".csv"))
    # a subfolder the command merges into (hunt --out D's report/): its files are replaced by renames too
    (folder / "report" / "charts").mkdir(parents=True)
    (folder / "report" / "charts" / "a.png").write_bytes(b"png")
    (folder / "report" / "charts" / "a.png").chmod(0o444)
    with pytest.raises(OutputPathError, match="folder .*report, which holds a read-only .*a.png"):
        check_output_dir(folder, "--out", writes=lambda name: name == "report", folders=["report"])
    assert main(["replay", str(scripts_dir() / "braking_stop.toml"), "--csv", str(keep)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "read-only" in err
    assert keep.read_text() == "mine\n" and (folder / "sweep.csv").read_text() == "mine too\n"
    keep.chmod(0o644)  # a writable one is replaced as before
    assert main(["replay", str(scripts_dir() / "braking_stop.toml"), "--csv", str(keep)]) == 0
    assert keep.read_text().startswith("t [s],")
