"""``python -m workbench`` is the ``carbench`` command."""

from workbench.cli import main

raise SystemExit(main())
