"""The ``carbench`` pytest plugin as a user meets it: the README's example, a failing test's screenshot,
the run that ``drive()`` returns, and the window's key helpers."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import physics.kernel
from workbench.gui.testing import drive

pytest_plugins = ["pytester"]

# The README's example, on a shipped script (the README's names a script of the user's own).
README_EXAMPLE = '''
from workbench.gui.testing import drive

def test_my_script_in_the_window(carbench_window):
    driven = drive(carbench_window, "{script}")
    assert driven.passed, driven.failures()
'''


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _this_checkout_compiled(monkeypatch):
    # The pytester children import this checkout (not a copy that pip may have installed elsewhere, whose
    # cache would be cold), and the kernel is compiled here first: a user's second run finds it cached.
    physics.kernel.default_kernel().compile()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))


def _run(pytester, source: str, *args: str):
    pytester.makepyfile(source)
    # A fresh interpreter, as a user's `pytest` is: Qt offscreen, the compiled model from the cache.
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def readme_second_example() -> str:
    """The README's second example of the plugin, as written there."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```python\n(import pytest\nfrom workbench.gui.testing import drive\n.*?)```", text, re.S)
    assert block, "the README's second plugin example is gone"
    return block.group(1)


def test_the_readme_examples_pass_the_first_faster_than_the_script_runs(pytester):
    # skidpad is 24 s of simulated time: paced at the script's dt it could not finish in less. The second example, as
    # written: it held the throttle for 2 s and then drove a script from rest, which threw the held keys away.
    result = _run(pytester, README_EXAMPLE.format(script="skidpad") + "\n\n" + readme_second_example(),
                  "--durations=0", "-vv")
    result.assert_outcomes(passed=3)
    calls = [float(m.group(1)) for m in re.finditer(r"^([\d.]+)s call .*test_my_script_in_the_window",
                                                    result.stdout.str(), re.M)]
    assert len(calls) == 1, result.stdout.str()
    assert calls[0] < 24.0


def test_a_failing_test_leaves_a_screenshot_named_in_its_report(pytester):
    from PySide6.QtGui import QImage

    result = _run(pytester, '''
from workbench.gui.testing import drive

def test_fails(carbench_window):
    drive(carbench_window, "braking_stop")
    assert False, "on purpose"
''')
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    found = re.search(r"screenshot of the window when the test failed: (\S+\.png)", out)
    assert found, out
    image = QImage(found.group(1))
    assert not image.isNull() and image.width() >= 800 and image.height() >= 500


def test_the_option_keeps_a_screenshot_of_every_test(pytester):
    folder = pytester.path / "shots"
    result = _run(pytester, '''
def test_passes(carbench_window):
    carbench_window.hold(["throttle"], 0.5)
''', f"--carbench-screenshots={folder}")
    result.assert_outcomes(passed=1)
    assert [p.suffix for p in folder.iterdir()] == [".png"]


def test_drive_returns_the_run_in_display_units_with_its_stamp(carbench_window):
    driven = drive(carbench_window, "braking_stop")
    assert len(driven) == len(list(driven)) > 0 and all(v.passed for v in driven)
    speed = driven.channel("speed_kmh")
    assert driven.unit("speed_kmh") == "km/h" and driven.unit("heading") == "deg"
    assert len(speed) == len(driven.t) == driven.run.data["vx"].size
    assert speed.max() > 55.0 and abs(speed[-1]) < 0.5  # up to speed, then stopped (the script's own bounds)
    np.testing.assert_allclose(driven.channel("heading"), np.degrees(driven.run.data["heading"]))
    assert driven.stamp.preset.startswith("manual003") and driven.stamp.params_sha256
    assert driven.frames == len(driven.t)  # every frame stepped once, none counted past the replay's end
    assert driven.repaints < driven.frames  # several frames per repaint, not one


def test_drive_repaints_less_often_offscreen_where_no_one_watches(qapp, monkeypatch):
    from PySide6.QtGui import QGuiApplication

    from workbench.gui import testing

    assert QGuiApplication.platformName() == "offscreen"  # the suite's
    assert testing.default_repaint_every() == testing.REPAINT_UNSEEN > testing.REPAINT_EVERY
    monkeypatch.setattr(QGuiApplication, "platformName", staticmethod(lambda: "xcb"))
    assert testing.default_repaint_every() == testing.REPAINT_EVERY == 0.03


def test_pacing_does_not_change_the_physics(carbench_window):
    # A handbrake flick and a slide (6 s): the car moves, turns and slides; the slow run repaints every third frame,
    # the fast one about once a second of wall time (hundreds of frames).
    fast = drive(carbench_window, "low_speed_slide", repaint_every=1.0)
    slow = drive(carbench_window, "low_speed_slide", chunk=3)  # a repaint after every third frame
    for name in ("x", "vx", "vy", "rpm", "heading"):
        np.testing.assert_array_equal(fast.run.data[name], slow.run.data[name])


@pytest.mark.carbench_script("braking_stop")
def test_the_script_marker_loads_it_and_hold_sends_real_keys(carbench_window):
    assert carbench_window.model.session.program.script.name == "braking-stop"
    carbench_window.hold(["throttle"], 1.0)
    assert carbench_window.model.session.log.column("throttle").max() > 0.0


def test_a_closed_window_is_deleted_after_its_test_and_other_widgets_are_left_alone(pytester):
    result = _run(pytester, '''
import pytest
from PySide6.QtWidgets import QApplication, QLabel
from workbench.gui.main_window import MainWindow


@pytest.fixture(scope="module")
def label():
    return QLabel("kept")


def test_one(carbench_window, qtbot, label):
    qtbot.addWidget(label)  # pytest-qt closes it after this test
    assert [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)] == [carbench_window]


def test_two(qtbot, label):
    assert label.text() == "kept"  # closed, not deleted: a widget the test did not make is the user's
    assert [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)] == []
''')
    result.assert_outcomes(passed=2)


def test_the_windows_questions_and_file_dialogs_never_block_a_test(carbench_window, tmp_path):
    """R during a recording asks yes or no in a modal message box, which the plugin left alone: a test that
    pressed R hung until it was killed. The question is kept and answered No (or window.answer_yes); a file
    dialog answers window.file_answer ("" is Cancel)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = carbench_window
    assert window.record()
    window.hold(["throttle"], 0.5)
    QTest.keyClick(window.car_view, Qt.Key.Key_R)
    assert window.asked[-1][0] == "Restart the recording?" and window.model.session.recording
    assert window.model.session.log.frames > 0  # No: the recording and the car go on
    window.answer_yes = True
    QTest.keyClick(window.car_view, Qt.Key.Key_R)
    assert window.model.session.log.frames <= 1  # Yes: back to rest, the recording restarted
    before = window.model.session.preset.name
    QTest.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert window.asked[-1] == ("Open preset", "file") and window.model.session.preset.name == before
    from physics.presets import cars_dir

    window.file_answer = str(cars_dir() / "classic.toml")
    window.load_preset_dialog()
    assert window.model.session.preset.name == "classic"


@pytest.mark.carbench_script("braking_stop")
def test_a_window_with_a_script_loaded_takes_its_shortcut_keys(carbench_window):
    """Loading a script of another car left the window inactive: P (pause) and the frame keys went nowhere."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = carbench_window
    running = window.model.running
    QTest.keyClick(window.car_view, Qt.Key.Key_P)
    assert window.isActiveWindow() and window.model.running != running



def test_a_window_takes_its_shortcut_keys_after_drive_loads_another_cars_script(carbench_window):
    """drive() of a script of another car (the window on the sedan, braking_stop on manual003) left the window
    inactive offscreen: P and the frame keys went nowhere after it (the marker's load was mended, drive's not)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = carbench_window
    drive(window, "braking_stop")
    running = window.model.running
    QTest.keyClick(window.car_view, Qt.Key.Key_P)
    assert window.isActiveWindow() and window.model.running != running


def test_a_hold_refuses_a_duration_it_cannot_drive_and_always_lets_the_keys_go(carbench_window):
    """A negative or zero hold drove a frame; nan and inf raised with the keys still down, and the throttle stayed
    pressed through the next hold([])."""
    window = carbench_window
    for seconds in (0.0, -1.0, float("nan"), float("inf"), 1e7):
        with pytest.raises(ValueError, match="seconds must be more than 0"):
            window.hold(["throttle"], seconds)
    assert window.model.session.log.frames == 0  # nothing driven
    window.hold([], 0.5)
    assert window.model.session.log.column("throttle").max() == 0.0  # no key left down

    def broken(frames):
        raise RuntimeError("a step failed")

    real = window.model.advance
    window.model.advance = broken
    with pytest.raises(RuntimeError):
        window.hold(["throttle"], 0.5)
    window.model.advance = real
    window.hold([], 0.5)
    assert window.model.session.log.column("throttle")[-1] == 0.0  # let go after the failure too


def test_a_missing_script_is_refused_as_a_malformed_one(carbench_window, tmp_path):
    """drive() of a file that is not there raised a ScriptError of its own, where a malformed file ended in an
    AssertionError with the reason in window.shown_errors: both the same way now."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[script\n")
    for script in (tmp_path / "missing.toml", bad):
        carbench_window.shown_errors.clear()
        with pytest.raises(AssertionError, match="script not loaded"):
            drive(carbench_window, script)
        ((title, message),) = carbench_window.shown_errors
        assert title == "Script not loaded" and script.name in message


def test_bad_markers_and_a_screenshot_folder_that_cannot_be_written_are_usage_errors(pytester):
    """A marker with no argument raised an IndexError inside the fixture; --carbench-screenshots under a file ended
    the run with an INTERNALERROR after the first test (every result lost)."""
    result = _run(pytester, '''
import pytest

@pytest.mark.carbench_script()
def test_script(carbench_window):
    pass

@pytest.mark.carbench_preset()
def test_preset(carbench_window):
    pass
''')
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*carbench_script(...) takes one argument*", "*carbench_preset(...) takes one argument*"])
    (pytester.path / "afile").write_text("")
    result = _run(pytester, "def test_passes():\n    pass\n", f"--carbench-screenshots={pytester.path / 'afile' / 'sub'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--carbench-screenshots*cannot make the folder*"])


def test_screenshots_of_tests_whose_ids_differ_only_in_punctuation_are_kept_apart(pytester):
    folder = pytester.path / "shots"
    result = _run(pytester, '''
import pytest

@pytest.mark.parametrize("s", ["a b", "a_b", "a/b"])
def test_ids(carbench_window, s):
    pass
''', f"--carbench-screenshots={folder}")
    result.assert_outcomes(passed=3)
    assert len(list(folder.iterdir())) == 3
