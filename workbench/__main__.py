"""``python -m workbench`` is the ``carbench`` command."""

from workbench.cli import entry

raise SystemExit(entry())
