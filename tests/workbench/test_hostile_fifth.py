"""A fifth look at hostile input: each case printed a false, doubled or differently worded line before its fix.

In-process calls only (the suite is at the edge of its time budget).
"""

from __future__ import annotations

import pytest
from cli_calls import run

SHORT = ('[script]\nname = "n"\npreset = "teaching"\nduration = 0.1\n'
         '[[expect]]\nchannel = "speed"\nat = 0.05\nmax = 1.0\n')


def _never(*args, **kwargs):
    raise AssertionError("the run started")


# -- an output in a folder of the kernel's: said as that, not as a device --------------------------------------------

@pytest.mark.parametrize("option, target, folder", [
    ("--csv", "/proc/carbench-x.csv", "/proc"),
    ("--mcap", "/proc/carbench-x.mcap", "/proc"),
    ("--csv", "/sys/kernel/carbench-x.csv", "/sys/kernel"),
])
def test_an_output_to_be_created_in_proc_or_sys_names_the_folder(option, target, folder, tmp_path, monkeypatch,
                                                                   capsys):
    """``--csv /proc/x.csv`` said "is a device or system file, not a regular file" of a file that does not exist."""
    import workbench.runs.replay as replay

    monkeypatch.setattr(replay, "replay", _never)
    script = tmp_path / "s.toml"
    script.write_text(SHORT, encoding="utf-8")
    code, out, err = run(["replay", str(script), option, target], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: {option} {target}: the folder {folder} is among the system's own files "
                                "(/proc, /sys), where no file can be created"], err


def test_an_output_through_a_link_into_proc_names_the_link_and_where_it_leads(tmp_path, monkeypatch, capsys):
    import workbench.runs.replay as replay

    monkeypatch.setattr(replay, "replay", _never)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SHORT, encoding="utf-8")
    (tmp_path / "into-proc").symlink_to("/proc/sys")
    code, out, err = run(["replay", "s.toml", "--csv", "into-proc/x.csv"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == ["carbench: --csv into-proc/x.csv: the folder into-proc (a link to /proc/sys) is among "
                                "the system's own files (/proc, /sys), where no file can be created"], err
    # a file that is there is a system file indeed, and a folder that is not there is said as missing
    for target, said in (("/proc/self/status", "/proc/self/status: is a device or system file, not a regular file"),
                         ("/proc/carbench-no-such/x.csv", "/proc/carbench-no-such/x.csv: the folder "
                                                          "/proc/carbench-no-such does not exist")):
        code, out, err = run(["replay", "s.toml", "--csv", target], capsys)
        assert code == 2 and err.splitlines() == [f"carbench: --csv {said}"], err
