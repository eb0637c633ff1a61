"""``python -m workbench`` is the ``carbench`` command."""

from .cli import main

raise SystemExit(main())
