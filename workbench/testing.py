"""Alias of :mod:`workbench.gui.testing` (the ``carbench`` pytest plugin), kept for the import path the
README documented first. The fixtures come from the plugin; this module re-exports its helpers."""

from workbench.gui.testing import drive, hold, make_window  # noqa: F401
