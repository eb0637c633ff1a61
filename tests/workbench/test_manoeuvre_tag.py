"""A script's ``[script] manoeuvre`` that names no handling test (a typo) is refused when the script is read: replay
and the window took it (the window's KPI dock then said "No KPIs: unknown manoeuvre") while a sweep refused it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_calls import run

from physics.presets import scripts_dir
from workbench.manoeuvres.catalogue import CATALOGUE
from workbench.scripts.format import ScriptError, load_script, parse_script

HEAD = '[script]\nname = "x"\npreset = "sedan"\nduration = 10.0\n'


def _typo_of_a_shipped_script(tmp_path: Path) -> Path:
    text = (scripts_dir() / "iso7401_step.toml").read_text(encoding="utf-8")
    assert 'manoeuvre = "iso7401_step"' in text
    path = tmp_path / "typo.toml"
    path.write_text(text.replace('manoeuvre = "iso7401_step"', 'manoeuvre = "nosuch"'), encoding="utf-8")
    return path


def test_a_manoeuvre_that_is_no_handling_test_is_refused_when_the_script_is_read():
    with pytest.raises(ScriptError) as refused:
        parse_script(HEAD + 'manoeuvre = "nosuch"\n', "typo.toml")
    said = str(refused.value)
    assert "\n" not in said
    assert said.startswith("typo.toml: [script] manoeuvre: unknown manoeuvre 'nosuch'; the manoeuvres are: "), said
    assert all(name in said for name in CATALOGUE), said


@pytest.mark.parametrize("name", [*CATALOGUE, *(m.script for m in CATALOGUE.values())])
def test_a_manoeuvre_the_catalogue_takes_is_read_as_before(name):
    """A test's own name, or its shipped script's, as a sweep and the KPI dock take it."""
    assert parse_script(HEAD + f'manoeuvre = "{name}"\n', "tagged.toml").manoeuvre == name


def test_every_shipped_script_with_a_manoeuvre_still_loads():
    tagged = [p for p in sorted(scripts_dir().glob("*.toml")) if "\nmanoeuvre = " in p.read_text(encoding="utf-8")]
    assert len(tagged) >= len(CATALOGUE)
    for path in tagged:
        assert load_script(path).manoeuvre in CATALOGUE


def test_carbench_replay_refuses_it_in_one_line_and_exit_2(tmp_path, capsys):
    path = _typo_of_a_shipped_script(tmp_path)
    code, out, err = run(["replay", str(path)], capsys)
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and str(path) in err and "[script] manoeuvre: unknown manoeuvre 'nosuch'" in err, err
    assert "iso7401_step" in err  # the known names


def test_the_window_refuses_it_and_keeps_the_script_it_has(carbench_window, tmp_path):
    window = carbench_window
    assert window.load_script(scripts_dir() / "iso7401_step.toml")
    program, preset = window.model.session.program, window.model.session.preset
    path = _typo_of_a_shipped_script(tmp_path)
    assert not window.load_script(path)
    title, said = window.shown_errors[-1]
    assert title == "Script not loaded"
    assert said.startswith(f"{path}: [script] manoeuvre: unknown manoeuvre 'nosuch'; the manoeuvres are: "), said
    assert window.model.session.program is program and window.model.session.preset is preset
    assert program.script.manoeuvre == "iso7401_step"
