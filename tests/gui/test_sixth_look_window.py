"""What a sixth look at the window found: the save dialogs' replace question before the name's check, the Sweep
dock's number format, exported plots without their channels, a Scripts menu without the shipped scripts, and a
Save that wrote the recording of the car before with nothing saying so; then a plot of B\u2212A exported under its
channels' names, and the Recorder's Save disabled during a first recording that File > Save recording saved."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from workbench.gui.testing import hold


def _dialog_as_qt(monkeypatch, answers: list[str], questions: list[str]):
    """Qt's save dialog as the window meets it: it answers the next name of ``answers`` and, unless told not to
    (DontConfirmOverwrite), first asks whether to replace a file of the name typed (kept in ``questions``)."""

    def dialog(parent=None, caption="", start="", filters="", selected="", options=None):
        path = answers.pop(0)
        if not (options and options & QFileDialog.Option.DontConfirmOverwrite) and path and os.path.exists(path):
            questions.append(f"dialog: replace {path}?")
        return path, filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))


def test_a_name_of_another_kind_is_refused_before_any_replace_question(carbench_window, tmp_path, monkeypatch):
    """The MCAP export's dialog asked to replace an existing old.csv, and the name was then refused for not being
    .mcap: the refusal comes first now, and a name that will be written is asked about once, as it is written."""
    window = carbench_window
    hold(window, {"throttle"}, 30)
    (tmp_path / "old.csv").write_text("kept\n")
    (tmp_path / "old.mcap").write_bytes(b"kept")
    (tmp_path / "noext.mcap").write_bytes(b"kept")
    answers = [str(tmp_path / "old.csv"), str(tmp_path / "old.mcap"), str(tmp_path / "old.mcap"),
               str(tmp_path / "noext")]
    questions: list[str] = []
    _dialog_as_qt(monkeypatch, answers, questions)
    window.ask_yes_no = lambda title, text: questions.append(f"window: {text}") or window.answer_yes

    assert not window.export_mcap_dialog()
    assert questions == []  # refused with no question before it
    assert window.shown_errors[-1][1].endswith("this is written as a .mcap file; give it a name ending in .mcap")
    assert (tmp_path / "old.csv").read_text() == "kept\n"

    assert not window.export_mcap_dialog()  # the right kind: asked once, No keeps the file
    assert questions == [f"window: {tmp_path / 'old.mcap'} already exists. Replace it?"]
    assert (tmp_path / "old.mcap").read_bytes() == b"kept"
    window.answer_yes = True
    assert window.export_mcap_dialog() and (tmp_path / "old.mcap").read_bytes() != b"kept"
    assert len(questions) == 2
    assert window.export_mcap_dialog()  # "noext" written as noext.mcap: asked about that name, not "noext"
    assert questions[2:] == [f"window: {tmp_path / 'noext.mcap'} already exists. Replace it?"]
    assert not [q for q in questions if q.startswith("dialog")]


def test_the_sweep_dock_writes_a_parameters_values_as_the_parameter_panel_does(carbench_window):
    """The Sweep dock's boxes wrote the mass as "1120.0 kg" (one decimal: five significant digits of the value)
    where the parameter panel writes "1600 kg": both write a value with the panel's format_number now."""
    window = carbench_window
    assert window.load_script("presets/scripts/clutch_coast.toml")
    window.show_sweep_dock()
    dock = window.sweep
    for path in ("body.mass", "steering.lock", "tyres.mu", "aero.cd", "engine.inertia"):
        assert dock.add_axis(path), dock.status.text()
        row = dock.axes[path]
        panel = next(e.spin for e in window.params.rows[path].editors if hasattr(e, "spin"))
        row.start.setValue(panel.value())  # the panel's spin box holds the value in its display unit
        assert row.start.text() == panel.text(), (path, row.start.text(), panel.text())
        dock.remove_axis(path)
    dock.add_axis("body.mass")
    mass = dock.axes["body.mass"]
    mass.start.setValue(1120.0)
    mass.stop.setValue(840.25)
    assert (mass.start.text(), mass.stop.text()) == ("1120 kg", "840.3 kg")


def test_an_exported_plot_says_which_channels_it_shows_with_their_units(carbench_window, tmp_path):
    """A plot's PNG (and SVG) was the plot alone: its axes' units, and no channel's name, where the plot on screen
    has its title row. The image has a title now: each channel in its curve's colour, with its unit."""
    from pyqtgraph import exporters
    from PySide6.QtGui import QColor, QImage

    window = carbench_window
    hold(window, {"throttle", "left"}, 240)
    row = window.plots.rows[2]
    assert list(row.curves) == ["yaw_rate", "steer"]
    window.plots.export(row, "png", str(tmp_path / "plot.png"))
    window.plots.export(row, "svg", str(tmp_path / "plot.svg"))
    image = QImage(str(tmp_path / "plot.png")).convertToFormat(QImage.Format.Format_RGB32)
    with window.plots._time_axis_shown(row):  # (an exported plot draws the time axis too)
        plot = exporters.ImageExporter(row.plot.getPlotItem()).export(toBytes=True).convertToFormat(
            QImage.Format.Format_RGB32)
    band = image.height() - plot.height()  # the title, above the plot as it is exported
    assert band >= row.title.fontMetrics().height(), (image.height(), plot.height())
    assert image.copy(0, band, plot.width(), plot.height()) == plot
    colours = {QColor(image.pixel(x, y)).getRgb()[:3] for x in range(image.width()) for y in range(band)}
    for curve in row.curves.values():  # each channel's colour square
        assert curve.opts["pen"].color().getRgb()[:3] in colours
    assert any(max(c) < 120 for c in colours)  # and dark text
    svg = (tmp_path / "plot.svg").read_text()
    titles = [f"{name} [{row.units[name]}]" for name in row.curves]  # the units its axes are in
    assert titles == ["yaw_rate [deg/s]", "steer [deg]"]
    assert all(f">{text}</text>" in svg for text in titles)


def test_the_scripts_menu_lists_the_shipped_scripts_by_car_and_loads_one(carbench_window, qtbot):
    """The Scripts menu had no shipped script, only "Load script..." (which opens their folder); File has "Shipped
    presets". It has "Shipped scripts" now: every script of presets/scripts, in one submenu a car, each loaded as
    Load script loads it."""
    from PySide6.QtCore import QPoint

    from physics.presets import scripts_dir

    window = carbench_window
    (shipped,) = [a.menu() for a in window.scripts_menu.actions() if a.text() == "Shipped scripts"]
    assert window.load_script_action in window.scripts_menu.actions()
    shipped.popup(window.mapToGlobal(QPoint(40, 40)))
    qtbot.waitUntil(shipped.isVisible)
    cars = {a.text(): a.menu() for a in shipped.actions()}
    assert "sedan" in cars and "manual003" in cars and "parking" in cars
    listed = {action.text(): car for car, menu in cars.items() for action in menu.actions()}
    assert sorted(listed) == sorted(p.stem for p in scripts_dir().glob("*.toml"))
    assert listed["braking_stop"] == "manual003" and listed["iso3888_2"] == "sedan"
    tallest = max(menu.sizeHint().height() for menu in cars.values())
    assert tallest < 640 - 60  # each car's list fits a 1024x640 screen, no scrolling
    shipped.close()
    shipped.popup(window.mapToGlobal(QPoint(40, 40)))  # opened again: filled once, not twice
    assert sorted(a.text() for a in shipped.actions()) == sorted(cars)
    shipped.close()

    (braking,) = [a for a in cars["manual003"].actions() if a.text() == "braking_stop"]
    assert "\n" not in braking.toolTip() and braking.toolTip().endswith("on manual003)")
    braking.trigger()
    program = window.model.session.program
    assert program is not None and Path(program.script.source).resolve() == (scripts_dir() / "braking_stop.toml").resolve()
    assert window.model.session.preset.name == "manual003" and not window.shown_errors
    assert window.recorder.replay.isEnabled()


def test_after_another_preset_save_writes_the_recording_driven_on_its_car_and_the_window_says_which(
        carbench_window, tmp_path):
    """A recording stopped on the sedan, then tail_happy opened (File > Shipped presets) and driven: the Recorder's
    Save and File > Save recording wrote the sedan's recording with nothing in the window saying which recording
    Save writes. It still writes that one (what was recorded, with the car it was driven on: never lost, never
    relabelled), and the window says so: a line under the Recorder's position, Save's tooltip, the File menu's
    entry, and a message as the other car comes in."""
    from PySide6.QtWidgets import QMessageBox

    from workbench.scripts.format import load_script

    window = carbench_window
    session, recorder = window.model.session, window.recorder
    assert not recorder.to_save.isVisible() and window.save_recording_action.text() == "Save recording\u2026"
    assert window.record()
    hold(window, {"throttle"}, 30)
    assert window.stop_recording()
    assert recorder.to_save.isVisible()
    assert recorder.to_save.full_text() == "Save: recording, 0.2 s on sedan, not saved"
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    shipped = next(a.menu() for a in file_menu.actions() if a.text() == "Shipped presets")
    next(a for a in shipped.actions() if a.text() == "tail_happy").trigger()
    assert session.preset.name == "tail_happy" and session.recording_unsaved
    said = "Save: recording, 0.2 s on sedan, not saved \u2014 not the car on show"
    assert recorder.to_save.full_text() == said and recorder.to_save.isVisible()
    assert "not tail_happy, the car on show" in recorder.save.toolTip()
    assert window.save_recording_action.text() == "Save recording (recording, 0.2 s on sedan, not saved)\u2026"
    assert "the recording made on sedan (0.2 s) is kept, not saved" in window.status_message.full_text()
    hold(window, {"left", "throttle"}, 50)  # driven on tail_happy, not recorded

    window.file_answer = str(tmp_path / "drive.toml")
    recorder.save.click()
    saved = load_script(tmp_path / "drive.toml")
    assert (saved.preset, saved.frames, [h.keys for h in saved.holds]) == ("sedan", 30, [("throttle",)])
    assert recorder.to_save.full_text() == "Save: drive, 0.2 s on sedan, saved \u2014 not the car on show"
    assert window.save_recording_action.text() == "Save recording (drive, 0.2 s on sedan, saved)\u2026"

    asked = []
    del window.ask_recording  # the window's own question (the plugin answers Discard), its box answered here
    window._save_discard_cancel = lambda title, text: asked.append(text) or QMessageBox.StandardButton.Cancel
    assert window.record()  # saved: nothing asked
    hold(window, {"right"}, 12)
    assert window.stop_recording() and not asked
    assert recorder.to_save.full_text() == "Save: recording, 0.1 s on tail_happy, not saved"
    assert not window.record()  # the question names the car too
    assert asked == ["The last recording (0.1 s on tail_happy) has not been saved. Save it before you record again?"]

    window.ask_recording = lambda doing: QMessageBox.StandardButton.Discard
    del window._save_discard_cancel
    window.model.start_recording()
    hold(window, {"throttle"}, 24)
    assert window.load_preset("sedan")  # Discard: let go as the car changes, and said so where Save is
    assert recorder.to_save.full_text() == "Save: recording, 0.2 s on tail_happy, discarded \u2014 not the car on show"


def test_an_exported_plot_of_b_minus_a_says_it_shows_differences(carbench_window, qtbot, tmp_path):
    """B\u2212A on (the clutch coast pinned, then re-run with aero.cd 0.6): the plot shows the run on show minus the
    pinned run, in that run's colour, its channel's curve hidden; its PNG and SVG were titled "speed_kmh [km/h]" in
    the channel's colour as if they showed the channel. The title says B\u2212A, in the words of the row's toggle,
    and names the pinned run in the colour its differences are drawn in; with B\u2212A off it is as before."""
    from PySide6.QtGui import QColor, QImage

    from physics.presets import scripts_dir
    from workbench.gui.testing import drive

    window = carbench_window
    drive(window, scripts_dir() / "clutch_coast.toml", chunk=24)
    assert window.comparer.pin_current()
    with qtbot.waitSignal(window.comparer.rerun_adopted, timeout=120_000):
        window.model.set_param("aero.cd", 0.6)
    (ref,) = window.comparer.references.items
    row = window.plots.rows[0]
    assert list(row.curves) == ["speed_kmh"]
    overlay = window.plot_overlay.row_overlay(row)
    overlay.delta.setChecked(True)
    assert not row.curves["speed_kmh"].isVisible()
    (difference,) = overlay.curves.values()
    assert difference.opts["pen"].color() == ref.colour and len(difference.getData()[1])

    def export(name: str) -> tuple[str, set]:
        window.plots.export(row, "png", str(tmp_path / f"{name}.png"))
        window.plots.export(row, "svg", str(tmp_path / f"{name}.svg"))
        image = QImage(str(tmp_path / f"{name}.png")).convertToFormat(QImage.Format.Format_RGB32)
        band = image.height() - row.plot.getPlotItem().height()
        colours = {QColor(image.pixel(x, y)).getRgb()[:3] for x in range(image.width()) for y in range(int(band) - 1)}
        return (tmp_path / f"{name}.svg").read_text(), colours

    svg, colours = export("delta")
    assert overlay.delta.text() == "B\u2212A"
    assert f"<title>carbench plot: speed_kmh B\u2212A [km/h], {ref.name}</title>" in svg
    assert ">speed_kmh B\u2212A [km/h]</text>" in svg and f">{ref.name}</text>" in svg
    assert ">speed_kmh [km/h]</text>" not in svg
    assert ref.colour.getRgb()[:3] in colours  # the pinned run's square, in the colour of the differences
    assert row.curves["speed_kmh"].opts["pen"].color().getRgb()[:3] not in colours  # not the hidden curve's

    overlay.delta.setChecked(False)
    svg, colours = export("curves")
    assert "<title>carbench plot: speed_kmh [km/h]</title>" in svg and "B\u2212A" not in svg
    assert row.curves["speed_kmh"].opts["pen"].color().getRgb()[:3] in colours


def test_the_recorders_save_stops_and_saves_a_first_recording_as_file_save_recording_does(carbench_window, tmp_path):
    """During a first recording (none stopped before it) the Recorder's Save was disabled, its tooltip saying it
    would stop the recording and save it, while File > Save recording did just that; during a later recording Save
    was enabled and did the same as the menu. Both offer it now, and do the same: ask for a file, stop the
    recording, write it; the file dialog cancelled, the recording runs on, as a question's Save leaves it (it was
    stopped, and what was driven after went unrecorded without a word)."""
    from workbench.scripts.format import load_script

    window = carbench_window
    session, recorder = window.model.session, window.recorder
    assert not recorder.save.isEnabled()  # nothing recorded: nothing to save (the menu says so, test_fifth_look)
    assert window.record()
    hold(window, {"throttle"}, 30)
    assert session.recording and session.last_recording is None  # a first recording
    assert recorder.save.isEnabled()
    assert recorder.save.toolTip() == "stop the recording running and save it as a script"
    window.file_answer = str(tmp_path / "first.toml")
    recorder.save.click()
    assert not session.recording and [a for a in window.asked if a[1] == "file"] == [("Save recording", "file")]
    assert load_script(tmp_path / "first.toml").frames == 30
    assert recorder.to_save.full_text() == "Save: first, 0.2 s on sedan, saved"

    for name, save in (("button", recorder.save.click), ("menu", window.save_recording_action.trigger)):
        assert window.record()
        hold(window, {"left"}, 12)
        assert recorder.save.isEnabled() and window.save_recording_action.isEnabled()
        window.file_answer = ""
        save()  # cancelled: the recording runs on
        assert session.recording
        hold(window, {"left"}, 6)
        window.file_answer = str(tmp_path / f"{name}.toml")
        save()  # the recording stopped, saved
        assert not session.recording
        assert load_script(tmp_path / f"{name}.toml").frames == 18 and not session.recording_unsaved


def test_a_discarded_recording_saved_after_all_reads_saved(carbench_window, tmp_path):
    """A recording discarded as another car opened (the question answered Discard), then saved after all under the
    name it already had: the Recorder still said "discarded", the file written."""
    from PySide6.QtWidgets import QMessageBox

    window = carbench_window
    recorder = window.recorder
    window.ask_recording = lambda doing: QMessageBox.StandardButton.Discard
    window.model.start_recording()
    hold(window, {"throttle"}, 24)
    assert window.load_preset("tail_happy")
    assert recorder.to_save.full_text().endswith("discarded \u2014 not the car on show")
    window.file_answer = str(tmp_path / "recording.toml")
    recorder.save.click()
    assert (tmp_path / "recording.toml").exists()
    assert recorder.to_save.full_text().startswith("Save: recording, 0.2 s on sedan, saved")
    assert "discarded" not in window.save_recording_action.text()
