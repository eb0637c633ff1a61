"""The GUI's frame time, offscreen: two simulation steps plus a full repaint of the car view and plots."""

from __future__ import annotations

import os
import statistics
import tempfile
import time


def frame_time(frames: int = 240, warm_up_seconds: float = 12.0, references: int = 0) -> tuple[float, float]:
    """Median and 95th-percentile time [ms] of one 60 Hz frame of the window driving the sedan.

    The plots are first filled with ``warm_up_seconds`` of history, so every curve draws a full
    scrolling window; ``references`` runs are then pinned (dashed curves and ghost cars to draw).
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.gui.main_window import MainWindow
    from workbench.runs.live import LiveSession

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as folder:
        settings = QSettings(os.path.join(folder, "bench.ini"), QSettings.Format.IniFormat)
        window = MainWindow(LiveSession("sedan"), settings=settings, start_timer=False)
        window.resize(1600, 1000)
        window.show()
        app.processEvents()
        model = window.model
        for key in ("throttle", "left"):
            model.press(key)
        per_frame = max(1, round(1.0 / 60.0 / model.session.dt))
        model.advance(int(warm_up_seconds / model.session.dt))
        for _ in range(references):
            window.comparer.pin_current()
            model.advance(int(1.0 / model.session.dt))  # each reference a second longer than the last
        app.processEvents()
        samples = []
        for i in range(frames):
            if i % 90 == 0:  # swing the wheel now and then, so the view keeps changing
                side = "right" if "left" in model.keys else "left"
                model.release("left")
                model.release("right")
                model.press(side)
            start = time.perf_counter()
            model.advance(per_frame)
            app.processEvents()  # the posted repaints of the car view, plots and panels
            samples.append((time.perf_counter() - start) * 1e3)
        window.close()
        app.processEvents()
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]
