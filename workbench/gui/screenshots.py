"""Screenshots of the window driving a script, for the README: ``python -m workbench.gui.screenshots docs``.

Runs offscreen; each picture is the window part-way through a shipped script.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

SHOTS = (
    # (file name, script, seconds into the script, window size)
    ("sedan.png", "full_lock_left.toml", 6.5, (1500, 900)),
    ("parking.png", "parking_reverse_bay.toml", 9.0, (1500, 900)),
    ("sedan-1024x640.png", "clutch_coast.toml", 8.0, (1024, 640)),
    ("sedan-1500x900.png", "clutch_coast.toml", 8.0, (1500, 900)),
    ("sedan-2560x1440.png", "clutch_coast.toml", 8.0, (2560, 1440)),
)

CAR_SHOTS = (
    # (file name, script, the car it drives instead of its own (or None), parameters set at its start (or
    # None), seconds, window size, car view span [m])
    # The tail-happy sedan in the sine with dwell with its centre of gravity raised from 0.5 to 0.7 m (an
    # SUV's): steering back out of the second steer, its inside rear wheel off the ground (no load at all
    # at 15.75 s; it first lifts at 14.4 s, and in a quarter of the frames after 16.1 s).
    # (As shipped, the tail-happy sedan lifts no wheel in the sine with dwell, where its inside rear keeps at least
    # 543 N of its 4,316 N (carbench 0.3.24, the body's roll with its centre of mass's sideways shift), nor in the lane
    # change, the slalom, power oversteer, braking in a turn or the skidpad (1,053 N the least of any wheel in those).
    # With the centre of gravity at 0.6 m it lifts in the sine with dwell for 11 frames from 15.53 s.)
    ("four-wheel.png", "r140_sine_dwell.toml", "tail_happy", {"body.cg_height": 0.7}, 15.75, (1500, 900), 10.0),
    # Braking with the left wheels on dry road and the right ones on ice: ABS on every wheel.
    ("split-mu.png", "split_mu_braking.toml", None, None, 15.0, (1500, 900), 16.0),
)
SIZE = (1500, 900)  # the comparison's and the KPI dock's window


def _script_on(script: str, preset: str | None, folder: str, params: dict[str, float] | None = None) -> Path:
    """The shipped ``script``, or a copy of it in ``folder`` that drives ``preset`` instead of its own car and
    sets ``params`` at its start (a ``[[set]]`` at 0 s)."""
    import re

    from physics.presets import scripts_dir

    path = scripts_dir() / script
    if preset is None and not params:
        return path
    text = path.read_text(encoding="utf-8")
    if preset is not None:
        text, count = re.subn(r'(?m)^preset = ".*"$', f'preset = "{preset}"', text, count=1)
        if count != 1:
            raise RuntimeError(f"{path}: no `preset = ...` line to change")
    if params:
        pairs = ", ".join(f'"{name}" = {value!r}' for name, value in params.items())
        text += f"\n[[set]]\nat = 0.0\nparams = {{ {pairs} }}\n"
    copy = Path(folder) / script
    copy.write_text(text, encoding="utf-8")
    return copy


def _replaying(settings: str, width: int, height: int, script: str | Path):
    """A shown window of ``width`` x ``height``, its settings in the file ``settings``, replaying a script (a shipped
    one by name)."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from physics.presets import scripts_dir
    from workbench.gui.testing import make_window

    app = QApplication.instance()
    window = make_window("sedan", QSettings(settings, QSettings.Format.IniFormat))
    window.show()
    app.processEvents()
    if not window.load_script(scripts_dir() / script if isinstance(script, str) else script):
        raise RuntimeError(window.shown_errors[-1][1])
    window.model.replay()
    _resize(window, width, height)
    return window


def _resize(window, width: int, height: int) -> None:
    """Make the shown window ``width`` x ``height``, or say why not. Resized before it was shown (and
    polished) its least width was still above 1024 px, and sedan-1024x640.png came out 1033 px wide."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    for _ in range(3):  # the docks' shares are applied a pass or two of the event loop after a resize
        window.resize(width, height)
        app.processEvents()
    if (window.width(), window.height()) != (width, height):
        least = window.minimumSizeHint()
        raise RuntimeError(f"the window is {window.width()}x{window.height()}, not {width}x{height} "
                           f"(its least size is {least.width()}x{least.height()})")


def take(folder: str | Path) -> list[Path]:
    """Write the screenshots into ``folder``; returns their paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, script, seconds, (width, height) in SHOTS:
            window = _replaying(os.path.join(tmp, f"{name}.ini"), width, height, script)
            frames = int(round(seconds / window.model.session.dt))
            while window.model.session.frame < frames and window.model.session.replaying:
                window.model.advance(min(8, frames - window.model.session.frame))
                app.processEvents()
            app.processEvents()
            path = folder / name
            _resize(window, width, height)
            window.grab().save(str(path))
            written.append(path)
            window.close()
        for name, script, preset, params, seconds, size, span in CAR_SHOTS:
            written.append(take_car_view(folder / name, os.path.join(tmp, f"{name}.ini"),
                                         _script_on(script, preset, tmp, params), seconds, size, span))
        # (These took the last shot's size, 2560x1440, from the loop above.)
        written.append(take_compare(folder / "compare.png", os.path.join(tmp, "compare.ini"), *SIZE))
        written.append(take_compare(folder / "kpi-dock.png", os.path.join(tmp, "kpis.ini"), *SIZE,
                                    "iso7401_sweep.toml", ("tyres.b_rear", 11.0), 40.0, "kpi_dock"))
        from workbench.gui.controller_screenshot import take_controllers

        written.append(take_controllers(folder / "controllers.png", os.path.join(tmp, "controllers.ini")))
    return written


def take_car_view(path: Path, settings: str, script: Path, seconds: float, size: tuple[int, int],
                  span: float) -> Path:
    """The window replaying ``script`` up to ``seconds``, the car view following the car ``span`` across."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    window = _replaying(settings, *size, script)
    frames = int(round(seconds / window.model.session.dt)) + 1  # the frame at ``seconds`` the newest
    while window.model.session.frame < frames and window.model.session.replaying:
        window.model.advance(min(16, frames - window.model.session.frame))
    window.model.set_running(False)
    window.car_view.set_follow(True)
    window.car_view.zoom_on_car(span)
    window.model.refresh()
    app.processEvents()
    _resize(window, *size)
    window.grab().save(str(path))
    window.close()
    return path


def take_compare(path: Path, settings: str, width: int = 1600, height: int = 1000,
                 script: str = "full_lock_left.toml", edit: tuple[str, float] = ("tyres.mu", 0.75),
                 seconds: float = 5.0, dock: str = "compare_dock") -> Path:
    """A before/after comparison: the script replayed and pinned, one parameter edited and re-run, ``dock`` on show."""
    import time

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    window = _replaying(settings, width, height, script)
    while window.model.session.replaying:
        window.model.advance(16)
    window.comparer.pin_current()
    window.model.set_param(*edit)
    while window.comparer.rerun.busy:
        app.processEvents()
        time.sleep(0.01)
    app.processEvents()
    getattr(window, dock).raise_()
    window.model.set_view_frame(int(round(seconds / window.model.session.dt)))
    window.car_view.set_follow(True)
    app.processEvents()
    _resize(window, width, height)
    window.grab().save(str(path))
    window.close()
    return path


def main(argv: list[str] | None = None) -> None:
    """``python -m workbench.gui.screenshots [DIR]``: write the README's screenshots into DIR (docs)."""
    argv = sys.argv[1:] if argv is None else argv
    for path in take(argv[0] if argv else "docs"):
        print(path)


if __name__ == "__main__":
    main()
