"""Starting the workbench window."""

from __future__ import annotations

import sys

from physics import PresetError


def run_app(preset: str | None = None, script: str | None = None) -> int:
    """Open the window on ``preset`` (default sedan), optionally with a script loaded; returns the exit code."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui.main_window import MainWindow
    from workbench.runs.live import LiveSession
    from workbench.scripts.format import ScriptError

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("carbench")
    app.setOrganizationName("carbench")
    try:
        session = LiveSession(preset or "sedan")
    except PresetError as exc:
        print(f"carbench: {exc}", file=sys.stderr)
        return 2
    window = MainWindow(session)
    if preset is None and script is None:
        window.restore_last_session()
    if script:
        try:
            window.model.load_script(script)
        except (ScriptError, PresetError) as exc:
            print(f"carbench: {exc}", file=sys.stderr)
            return 2
    window.show()
    window.car_view.setFocus()
    keeper = _keep_recovery(window)
    code = app.exec()
    keeper.discard()  # a clean exit: nothing to recover next time
    return code


def _keep_recovery(window):
    """Offer what a crashed run left, then keep this run's recovery file every few seconds."""
    from workbench.gui.recovery import RecoveryKeeper, offer_restore
    from workbench.runs.recovery import RecoveryStore

    store = RecoveryStore()
    offer_restore(window, store)
    return RecoveryKeeper(window, store)
