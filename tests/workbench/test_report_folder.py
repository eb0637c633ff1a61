"""A report's folder: its page never writes over another program's index.html, nor into carbench's presets.

A report replaces its folder's index.html. When that page is an earlier carbench report, that is the point;
when it is a user's own page (a site, a notebook's export), it was lost without a word.
"""

from __future__ import annotations

import pytest

from physics.presets import presets_root, scripts_dir
from workbench.cli import main
from workbench.output.files import OutputPathError
from workbench.output.html_report import GENERATOR, check_report_dir

SCRIPT = str(scripts_dir() / "clutch_coast.toml")
COMMANDS = {
    "replay": lambda folder: ["replay", SCRIPT, "--report", str(folder)],
    "manoeuvre": lambda folder: ["manoeuvre", "iso4138", "--preset", "sedan", "--report", str(folder)],
    "hunt": lambda folder: ["hunt", "--preset", "sedan", "--cars", "2", "--seconds", "1", "--out", str(folder.parent)],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_another_programs_page_is_never_overwritten(tmp_path, capsys, command):
    folder = tmp_path / "report"
    folder.mkdir()
    mine = "<html><head><title>My notes</title></head><body>months of work</body></html>"
    (folder / "index.html").write_text(mine)
    assert main(COMMANDS[command](folder)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(folder) in err and "index.html is not a carbench report" in err
    assert (folder / "index.html").read_text() == mine and sorted(p.name for p in folder.iterdir()) == ["index.html"]


@pytest.mark.parametrize("page", [
    f"<html><head>{GENERATOR}<title>carbench replay</title></head></html>",
    "<html><head><title>carbench manoeuvre</title></head></html>",  # an earlier carbench's page, before the mark
])
def test_an_earlier_carbench_report_is_replaced(tmp_path, page):
    (tmp_path / "index.html").write_text(page)
    assert check_report_dir(tmp_path, "--report") == tmp_path


def test_an_empty_or_new_folder_is_fine(tmp_path):
    assert check_report_dir(tmp_path, "--report") == tmp_path
    assert check_report_dir(tmp_path / "new", "--report") == tmp_path / "new"


def test_a_report_is_not_written_into_the_shipped_presets(capsys):
    with pytest.raises(OutputPathError, match="inside carbench's shipped presets"):
        check_report_dir(scripts_dir(), "--report")
    with pytest.raises(OutputPathError, match="inside carbench's shipped presets"):
        check_report_dir(presets_root() / "new-report", "--report")
    assert main(["replay", SCRIPT, "--report", str(scripts_dir())]) == 2
    assert "shipped presets" in capsys.readouterr().err
    assert not (scripts_dir() / "index.html").exists()


def test_a_hunt_is_refused_before_it_runs_where_its_report_would_go_into_the_shipped_presets(capsys):
    # Checked only where report/ existed: the first hunt into presets/scripts wrote its report there, and its scripts
    # joined the shipped ones.
    out = scripts_dir() / "hunt_out"
    assert main(["hunt", "--preset", "sedan", "--cars", "2", "--seconds", "1", "--out", str(out)]) == 2
    assert "shipped presets" in capsys.readouterr().err and not out.exists()
