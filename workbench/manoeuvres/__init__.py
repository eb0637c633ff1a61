"""Objective handling tests: the catalogue of standard manoeuvres, their runs and their KPIs.

Each test (workbench.manoeuvres.catalogue) is a shipped script with a closed-loop driver or a
steering robot, run on one or many cars as batches (workbench.manoeuvres.runner), and KPIs computed
from the runs as its standard defines them. ``carbench manoeuvre`` prints them; ``carbench sweep``
takes them as measures; the window's KPI dock shows them beside each pinned reference.
"""
