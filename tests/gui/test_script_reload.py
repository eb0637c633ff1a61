"""A script on the car already on show keeps the parameter panel's rows (folds, scroll) and shows its values."""

import pytest

SCRIPT = "presets/scripts/clutch_coast.toml"  # a manual003 script


@pytest.mark.carbench_preset("manual003")
def test_a_script_on_the_same_car_keeps_the_rows_and_shows_the_scripts_values(carbench_window):
    window = carbench_window
    panel, model = window.params, window.model
    rows = dict(panel.rows)
    mass = model.session.params.get("body.mass")
    model.set_param("body.mass", mass + 100.0)
    assert panel.rows["body.mass"].modified

    model.load_script(SCRIPT)  # the model's load drops the edits: the preset's value again
    assert panel.rows == rows and all(panel.rows[p] is rows[p] for p in rows)  # the same row widgets
    assert model.session.params.get("body.mass") == mass
    assert not panel.rows["body.mass"].modified

    model.set_param("body.mass", mass + 100.0)
    assert window.load_script(SCRIPT)  # the window's load keeps the edits of the car on show
    assert all(panel.rows[p] is rows[p] for p in rows)
    assert panel.rows["body.mass"].modified


@pytest.mark.carbench_preset("sedan")
def test_a_script_on_another_car_builds_its_rows(carbench_window):
    window = carbench_window
    rows = dict(window.params.rows)
    assert window.load_script(SCRIPT)
    assert window.params.rows is not None and set(window.params.rows) != set(rows)
    assert not any(window.params.rows.get(p) is rows[p] for p in rows)
    assert window.model.session.params.get("body.mass") == window.model.session.preset.params.get("body.mass")
