"""The Qt window: main window, car view, live plots, parameter, telemetry and recorder docks, the
session's Qt model, the app entry point, screenshots, the GUI benchmark and the pytest plugin.

The only part of carbench that imports PySide6 or pyqtgraph.
"""
