"""The KPI dock and the Scripts menu: run a manoeuvre, pin it, edit, and read both runs' KPIs; the car
view draws the course's path, cones and the driver's preview point."""

from __future__ import annotations

import pytest

from workbench.gui.kpi_dock import run_manoeuvre


def finish(window, qtbot) -> None:
    model = window.model
    while model.session.replaying:
        model.advance(240)


def test_a_manoeuvre_from_the_scripts_menu_shows_its_kpis_and_course(carbench_window, qtbot):
    w = carbench_window
    titles = [a.text() for a in w.scripts_menu.actions()[0].menu().actions()]
    assert any("ISO 3888-2" in t for t in titles) and any("ISO 4138" in t for t in titles)
    assert run_manoeuvre(w, "iso3888_2")
    finish(w, qtbot)
    rows = dict(w.kpis.rows)
    assert rows["cones touched"] == ["0 PASS"]
    from workbench.gui.recorder_panel import PASS

    cones = next(w.kpis.tree.topLevelItem(i) for i in range(w.kpis.tree.topLevelItemCount())
                 if w.kpis.tree.topLevelItem(i).text(0) == "cones touched")
    assert cones.background(1).color() == PASS  # a verdict in the Recorder's colours
    assert "`" not in w.kpis.status.text() and "\u201ccarbench manoeuvre iso3888_2\u201d" in w.kpis.status.text()
    assert rows["entry speed"][0].endswith("km/h")
    overlay = w.course_overlay
    assert len(overlay.cones.data) == 30  # five a side of three lanes
    assert overlay.path.getData()[0].size > 100
    tx, ty = overlay.target.getData()
    assert len(tx) == 1 and tx[0] > w.model.session.log.column("x")[-1]  # the preview point is ahead


def test_an_edit_reruns_and_the_dock_lists_the_reference_beside(carbench_window, qtbot):
    w = carbench_window
    assert run_manoeuvre(w, "iso7401_step")
    finish(w, qtbot)
    before = dict(w.kpis.rows)["steady yaw-rate gain (road wheel)"]
    assert w.comparer.pin_current()
    w.model.set_param("tyres.b_rear", 11.0)
    qtbot.waitUntil(lambda: len(dict(w.kpis.rows)["steady yaw-rate gain (road wheel)"]) == 2
                    and not w.comparer.rerun.busy, timeout=60000)
    qtbot.waitUntil(lambda: dict(w.kpis.rows)["steady yaw-rate gain (road wheel)"][0] != before[0], timeout=60000)
    on_show, ref = dict(w.kpis.rows)["steady yaw-rate gain (road wheel)"]
    assert ref == before[0]
    # Less rear cornering stiffness: more yaw rate for the same steer.
    assert float(on_show.split()[0]) > float(ref.split()[0])
    # Both runs' values show in the dock (the names give way, whole in their tooltips)
    w.kpi_dock.raise_()
    qtbot.wait(20)
    tree = w.kpis.tree
    header = tree.header()
    for column in (1, 2):
        assert header.sectionViewportPosition(column) + header.sectionSize(column) <= tree.viewport().width()
        assert header.sectionSize(column) >= tree.sizeHintForColumn(column)
    first = tree.topLevelItem(0)
    assert first.toolTip(0).startswith(first.text(0))


@pytest.mark.carbench_preset("sedan")
def test_the_frequency_response_is_drawn_as_a_bode_chart(carbench_window, qtbot):
    w = carbench_window
    assert run_manoeuvre(w, "iso7401_sweep")
    finish(w, qtbot)
    assert w.kpis.gain.isVisible() or not w.isVisible()
    curves = w.kpis.gain.getPlotItem().listDataItems()
    assert len(curves) == 1
    freq, gain = curves[0].getData()
    assert freq.min() < 0.5 and freq.max() > 2.5 and gain[0] > gain[-1]  # the yaw gain falls off with frequency
    # each axis names its unit within the chart's least height (the gain's long title ran past it, its unit cut off)
    for plot, unit in ((w.kpis.gain, "[1/s]"), (w.kpis.phase, "[deg]")):
        axis = plot.getPlotItem().getAxis("left")
        assert axis.labelText.endswith(unit) and axis.label.boundingRect().width() <= axis.height()


@pytest.mark.parametrize("size", [(1024, 640), (1500, 900)])
def test_with_no_manoeuvre_the_dock_shows_a_one_line_hint_and_no_empty_table(carbench_window, qtbot, size):
    from workbench.gui.kpi_dock import HINT

    w = carbench_window
    w.resize(*size)
    w.kpi_dock.raise_()
    qtbot.wait(20)
    dock = w.kpis
    assert not dock.tree.isVisibleTo(dock) and not dock.gain.isVisibleTo(dock)
    assert dock.status.isVisible() and dock.status.text() == HINT
    assert dock.status.heightForWidth(dock.status.width()) < 2 * dock.status.fontMetrics().height()  # one line
    assert dock.status.y() < 3 * dock.status.fontMetrics().height()  # at the top of the dock
    assert run_manoeuvre(w, "iso3888_2")
    finish(w, qtbot)
    assert dock.tree.isVisibleTo(dock) and dock.tree.headerItem().text(0) == "KPI"


def test_a_reference_that_is_not_a_run_of_the_script_gets_no_kpis(carbench_window, qtbot):
    """Two keyboard drives pinned before a handling test was run were given its KPIs, with FAIL verdicts
    ("lateral displacement 0 m FAIL"): they are runs of no script."""
    w = carbench_window
    w.hold(["throttle", "left"], 1.0)
    assert w.comparer.pin_current()
    assert run_manoeuvre(w, "iso7401_step")
    finish(w, qtbot)
    dock = w.kpis
    assert dock.rows and [cells[1] for _, cells in dock.rows] == ["-"] * len(dock.rows)  # ref 1: no figure, verdict
    lines = [dock.tree.topLevelItem(i).text(0) for i in range(dock.tree.topLevelItemCount())]
    assert any(line.startswith("ref 1: not a run of ") and "(no KPIs of iso7401_step)" in line for line in lines)
    # the reason across the row's whole width (in the names' column it read "ref 1: not a run o...")
    (why,) = [dock.tree.topLevelItem(i) for i in range(dock.tree.topLevelItemCount())
              if dock.tree.topLevelItem(i).text(0).startswith("ref 1: not a run of ")]
    assert why.isFirstColumnSpanned() and why.toolTip(0) == why.text(0)
    assert all(cells[0] != "-" for label, cells in dock.rows if "response time" in label)  # the run on show has them


def _copy_on(tmp_path, script: str, preset: str):
    from physics.presets import scripts_dir

    text = (scripts_dir() / f"{script}.toml").read_text()
    head, rest = text.split("[script]", 1)
    lines = rest.splitlines()
    lines = [f'preset = "{preset}"' if line.strip().startswith("preset") else line for line in lines]
    path = tmp_path / f"{script}_{preset}.toml"
    path.write_text(head + "[script]" + "\n".join(lines) + "\n")
    return path


def _replay_on(w, qtbot, path) -> None:
    """Load the script at ``path``, replay it to its end and have the KPI dock take its KPIs."""
    assert w.load_script(path)
    w.kpi_dock.show()
    assert w.replay()
    finish(w, qtbot)
    w.kpis.update_kpis()


def test_a_kinematic_car_gets_no_handling_kpis_in_the_dock(carbench_window, qtbot, tmp_path):
    """The dock gave the teaching car an understeer gradient and a characteristic speed of 17,700 km/h, figures
    carbench manoeuvre refuses to give a car with no tyres."""
    w = carbench_window
    _replay_on(w, qtbot, _copy_on(tmp_path, "iso4138_circle", "teaching"))
    texts = [w.kpis.tree.topLevelItem(i).text(0) for i in range(w.kpis.tree.topLevelItemCount())]
    assert any("not run" in t and "kinematic" in t for t in texts), texts
    assert not w.kpis.rows  # no KPI row at all


def test_a_kinematic_car_gets_no_bode_chart_either(carbench_window, qtbot, tmp_path):
    """The table said the sweep was not run on the teaching car, and the chart drew its gain and phase anyway."""
    w = carbench_window
    _replay_on(w, qtbot, _copy_on(tmp_path, "iso7401_sweep", "teaching"))
    texts = [w.kpis.tree.topLevelItem(i).text(0) for i in range(w.kpis.tree.topLevelItemCount())]
    assert any("not run" in t for t in texts), texts
    assert not w.kpis.gain.getPlotItem().listDataItems() and not w.kpis.gain.isVisibleTo(w.kpis)


def test_a_run_that_missed_the_tests_conditions_gets_no_verdicts_in_the_dock(carbench_window, qtbot, tmp_path):
    """The sine with dwell on a car that never reached 80 km/h: the dock gave its yaw-rate ratios PASS."""
    w = carbench_window
    _replay_on(w, qtbot, _copy_on(tmp_path, "r140_sine_dwell", "classic"))
    rows = dict(w.kpis.rows)
    assert not any(cell.endswith(("PASS", "FAIL")) for label, cells in rows.items() if label != "the test's conditions"
                   for cell in cells), rows
    assert rows["the test's conditions"][0].endswith("FAIL")
    # what the run did not meet, under the row (it was in the row's tooltip at most; a review under Xvfb)
    row = next(w.kpis.tree.topLevelItem(i) for i in range(w.kpis.tree.topLevelItemCount())
               if w.kpis.tree.topLevelItem(i).text(0) == "the test's conditions")
    assert row.childCount() == 1 and row.isExpanded()
    said = row.child(0).text(0)
    assert said.startswith("on show: 80 km/h at the beginning of steer: speed_kmh ") and said.endswith("not met"), said
    assert "km/h" in row.toolTip(1)


@pytest.mark.carbench_preset("tail_happy")
def test_a_manoeuvre_runs_on_the_car_on_show_and_the_dock_names_it(carbench_window, qtbot):
    """Run manoeuvre loaded the shipped script with its own car: on tail_happy the window switched to the sedan
    without a word and the dock showed the sedan's KPIs, naming no car (a review under Xvfb). It runs on the car on
    show now, its edits kept, fitted as `carbench manoeuvre` fits it; the dock says which car."""
    w = carbench_window
    w.model.set_param("body.mass", 1700.0)
    assert run_manoeuvre(w, "iso7401_step")
    session = w.model.session
    assert session.preset.name == "tail_happy" and session.params.body.mass == 1700.0
    assert session.program.script.manoeuvre == "iso7401_step" and session.replaying
    finish(w, qtbot)
    assert "single-run KPIs of iso7401-step on tail_happy" in w.kpis.status.text(), w.kpis.status.text()
    assert dict(w.kpis.rows)["steady yaw-rate gain (road wheel)"][0].endswith("1/s")


def test_a_run_whose_steer_fell_behind_the_steering_robot_gets_no_verdicts_in_the_dock(carbench_window, qtbot):
    # The command and the sweep hold a run whose steer falls behind the steering robot's profile to be no run of the
    # test; the dock judged the same run as the test's. The shipped sine with dwell (120 deg at 0.7 Hz) asks 528 deg/s
    # of handwheel; at 0.5 rad/s of road wheel (430 deg/s at 15:1) the car's steering cannot follow.
    w = carbench_window
    w.model.set_param("steering.rate", 0.5)
    assert run_manoeuvre(w, "r140_sine_dwell")
    finish(w, qtbot)
    rows = dict(w.kpis.rows)
    behind = rows["steer behind the steering robot's profile"][0]
    assert behind.endswith("deg") and float(behind.split()[0]) > 1.0, behind
    assert rows["the test's conditions"][0].endswith(" FAIL"), rows
    judged = [cells[0] for label, cells in w.kpis.rows if label not in ("the test's conditions",)]
    assert judged and not any(c.endswith((" PASS", " FAIL")) for c in judged), rows
    conditions = next(w.kpis.tree.topLevelItem(i) for i in range(w.kpis.tree.topLevelItemCount())
                      if w.kpis.tree.topLevelItem(i).text(0) == "the test's conditions")
    assert "the steering robot's input: the steer fell" in conditions.child(0).text(0)


def test_a_run_that_follows_the_steering_robot_is_judged_in_the_dock(carbench_window, qtbot):
    w = carbench_window
    assert run_manoeuvre(w, "r140_sine_dwell")
    finish(w, qtbot)
    rows = dict(w.kpis.rows)
    assert "steer behind the steering robot's profile" not in rows
    assert any(cells[0].endswith(" PASS") for cells in rows.values()), rows
