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
    # (file name, script, the car it drives instead of its own (or None), seconds, window size, car view span [m])
    # The tail-happy sedan in the sine with dwell, sliding out of the second steer: its inside rear wheel
    # nearly off the ground.
    ("four-wheel.png", "r140_sine_dwell.toml", "tail_happy", 15.4, (1500, 900), 10.0),
    # Braking with the left wheels on dry road and the right ones on ice: ABS on every wheel.
    ("split-mu.png", "split_mu_braking.toml", None, 15.0, (1500, 900), 16.0),
)


def _script_on(script: str, preset: str | None, folder: str) -> Path:
    """The shipped ``script``, or a copy of it in ``folder`` that drives ``preset`` instead of its own car."""
    import re

    from physics.presets import scripts_dir

    path = scripts_dir() / script
    if preset is None:
        return path
    text, count = re.subn(r'(?m)^preset = ".*"$', f'preset = "{preset}"', path.read_text(encoding="utf-8"), count=1)
    if count != 1:
        raise RuntimeError(f"{path}: no `preset = ...` line to change")
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

    window = make_window("sedan", QSettings(settings, QSettings.Format.IniFormat))
    window.resize(width, height)
    window.show()
    QApplication.instance().processEvents()
    if not window.load_script(scripts_dir() / script if isinstance(script, str) else script):
        raise RuntimeError(window.shown_errors[-1][1])
    window.model.replay()
    return window


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
            window.grab().save(str(path))
            written.append(path)
            window.close()
        for name, script, preset, seconds, size, span in CAR_SHOTS:
            written.append(take_car_view(folder / name, os.path.join(tmp, f"{name}.ini"),
                                         _script_on(script, preset, tmp), seconds, size, span))
        written.append(take_compare(folder / "compare.png", os.path.join(tmp, "compare.ini"), width, height))
        written.append(take_compare(folder / "kpi-dock.png", os.path.join(tmp, "kpis.ini"), width, height,
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
    frames = int(round(seconds / window.model.session.dt))
    while window.model.session.frame < frames and window.model.session.replaying:
        window.model.advance(min(16, frames - window.model.session.frame))
    window.model.set_running(False)
    window.car_view.set_follow(True)
    window.car_view.zoom_on_car(span)
    window.model.refresh()
    app.processEvents()
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
