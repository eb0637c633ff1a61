"""``python -m workbench`` is the ``carbench`` command."""

from workbench.launch import entry

raise SystemExit(entry())
