"""carbench's workbench.

Headless (no Qt; ``carbench replay`` runs where Qt is not installed):

- ``workbench.scripts``: the input-script format, compiling a script against a car, the recorder,
  the TOML writer;
- ``workbench.runs``: replaying scripts with their expectations, the live session;
- ``workbench.output``: the telemetry log and CSV, verdict reports, preset files, atomic writes;
- ``workbench.cli`` and ``workbench.bench``: the ``carbench`` command and its benchmarks.

The Qt window, its docks and views, and the pytest plugin live in ``workbench.gui``.
The layering is held by import-linter contracts in ``pyproject.toml``.
"""
