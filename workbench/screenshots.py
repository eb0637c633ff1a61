"""Alias of :mod:`workbench.gui.screenshots`: ``python -m workbench.screenshots DIR`` keeps working."""

from workbench.gui.screenshots import main, take  # noqa: F401

if __name__ == "__main__":
    main()
