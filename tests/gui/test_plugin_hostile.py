"""The ``carbench`` pytest plugin used in hostile ways: keys while another window is active, two windows, paths in
markers, a preset the script replaces, an exception while the window is deleted, a failing script's message, the
project's own Qt log level."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from workbench.gui.testing import _key_of, activate, drive, hold, make_window

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pytester(pytester, monkeypatch):
    """pytester whose children import this checkout (not a copy pip may have installed elsewhere), the kernel
    compiled here first (tests/gui/test_plugin.py does the same)."""
    import physics.kernel

    physics.kernel.default_kernel().compile()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))
    return pytester


def speed(window) -> float:
    return float(window.model.session.log.column("speed_kmh")[-1])


def test_hold_drives_the_window_after_another_took_the_activation(carbench_window, qtbot, carbench_settings):
    other = make_window("sedan", carbench_settings)
    qtbot.addWidget(other)
    other.show()
    activate(other)
    assert other.isActiveWindow() and not carbench_window.isActiveWindow()
    carbench_window.hold(["throttle"], 1.0)
    assert speed(carbench_window) > 5.0 and other.model.session.frame == 0
    assert carbench_window.isActiveWindow()  # as after a click on it: on a display the keys go to the active window


def test_keys_sent_to_one_window_drive_its_car_only(carbench_window, qtbot, carbench_settings):
    """Each window filters every key of the application: offscreen the newest one drove its car with the keys sent
    to the other's car view."""
    other = make_window("sedan", carbench_settings)
    qtbot.addWidget(other)
    other.show()
    key = Qt.Key(_key_of("throttle"))
    QTest.keyPress(carbench_window.car_view, key)
    carbench_window.model.advance(120)
    other.model.advance(120)
    QTest.keyRelease(carbench_window.car_view, key)
    assert speed(carbench_window) > 5.0 and speed(other) == 0.0
    QTest.keyPress(other.car_view, key)
    other.model.advance(120)
    QTest.keyRelease(other.car_view, key)
    assert speed(other) > 5.0


def test_the_helpers_refuse_what_they_would_get_wrong(carbench_window):
    with pytest.raises(ValueError, match="whole number of frames"):
        hold(carbench_window, ["throttle"], 2.0)  # seconds, as window.hold takes them: it stepped 2 frames
    with pytest.raises(ValueError, match="'thrust' is no driving key"):
        hold(carbench_window, ["thrust"], 10)
    assert carbench_window.model.session.frame == 0
    hold(carbench_window, "throttle", 120)  # one key by its name
    assert speed(carbench_window) > 5.0
    carbench_window.hold("left", 0.5)
    assert carbench_window.model.session.log.column("steer")[-1] > 0.0
    with pytest.raises(ValueError, match="chunk must be a whole number"):
        drive(carbench_window, "braking_stop", chunk=0)


def test_a_driven_run_is_a_sequence_of_its_verdicts_and_says_what_failed(carbench_window, tmp_path):
    script = tmp_path / "fails.toml"
    script.write_text('[script]\nname = "fails"\npreset = "sedan"\nduration = 1.0\n\n'
                      '[[expect]]\nname = "yaw over 30 deg/s"\nchannel = "yaw_rate"\nat = 0.5\nmin = 0.5236\n'
                      '[[expect]]\nname = "at rest"\nchannel = "speed_kmh"\nat = 0.5\nmax = 1.0\n')
    driven = drive(carbench_window, script)
    assert len(driven) == 2 and driven.index(driven[1]) == 1 and driven.count(driven[0]) == 1
    assert not driven.passed and [v.passed for v in driven] == [False, True]
    (line,) = driven.failures().splitlines()
    assert line.startswith("FAIL  yaw over 30 deg/s  yaw_rate  at 0.5 s (frame 60)  >= 30") and "deg/s" in line
    assert line.endswith(" 0 deg/s") and len(repr(driven)) < 100


def _run(pytester, *args: str):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def test_markers_take_paths_beside_the_test_file_and_refuse_a_car_the_script_replaces(pytester):
    sub = pytester.path / "sub"
    sub.mkdir()
    from physics.presets import cars_dir, scripts_dir

    (sub / "mycar.toml").write_text((cars_dir() / "parking.toml").read_text())
    (sub / "mystop.toml").write_text((scripts_dir() / "braking_stop.toml").read_text())
    (sub / "test_markers.py").write_text('''
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.mark.carbench_preset("mycar.toml")
def test_relative_preset(carbench_window):
    assert carbench_window.model.session.preset.path == HERE / "mycar.toml"


@pytest.mark.carbench_preset(HERE / "mycar.toml")
def test_path_preset(carbench_window):
    assert carbench_window.model.session.preset.name == "mycar"


@pytest.mark.carbench_script("mystop.toml")
def test_relative_script(carbench_window):
    assert carbench_window.model.session.program.script.name == "braking-stop"


@pytest.mark.carbench_preset(name="parking")
def test_keyword(carbench_window):
    pass


@pytest.mark.carbench_preset("parking")
@pytest.mark.carbench_script("braking_stop")
def test_replaced(carbench_window):
    pass
''')
    result = _run(pytester, "sub")  # from the folder above: the relative paths are the test file's
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(["*carbench_preset(...) takes one argument*not as a keyword; got (name='parking')*",
                                 "*carbench_preset('parking'): the script braking_stop drives its own car, manual003*"])


def test_an_exception_while_the_window_is_deleted_fails_its_test_and_the_project_s_log_level_holds(pytester):
    pytester.makeini("[pytest]\nqt_log_level_fail = NO\n")
    pytester.makepyfile('''
from PySide6.QtCore import qWarning


def boom(*args):
    raise RuntimeError("boom while the window is deleted")


def test_deleted(carbench_window):
    carbench_window.model.destroyed.connect(boom)


def test_after(carbench_window):
    pass


def test_a_warning_the_project_allows(qtbot):
    qWarning("harmless to this project")
''')
    result = _run(pytester, "-rA")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_deleted*", "*boom while the window is deleted*"])
    # The same level given with -o, and none at all (the plugin's WARNING then fails the warning).
    (pytester.path / "pytest.ini").write_text("[pytest]\n")
    _run(pytester, "-o", "qt_log_level_fail=NO", "-k", "allows").assert_outcomes(passed=1)
    _run(pytester, "-k", "allows").assert_outcomes(failed=1)


def test_a_driving_key_sent_to_the_plot_panel_or_a_floating_dock_drives_its_window(carbench_window):
    """Offscreen the key's receiver says which window it is for: the plot panel (whose ``window`` attribute is its
    time-window box, not QWidget.window) raised a TypeError inside the filter, and a floating dock is the window's."""
    window = carbench_window
    key = Qt.Key(_key_of("throttle"))
    QTest.keyPress(window.plots, key)
    window.model.advance(60)
    QTest.keyRelease(window.plots, key)
    assert speed(window) > 2.0
    dock = window.plots_dock
    dock.setFloating(True)
    before = speed(window)
    QTest.keyPress(window.plots, key)
    window.model.advance(60)
    QTest.keyRelease(window.plots, key)
    assert speed(window) > before
