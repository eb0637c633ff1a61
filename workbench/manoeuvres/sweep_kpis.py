"""A manoeuvre's KPIs as a sweep's measures: every car of the sweep through the test's procedure."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from workbench.manoeuvres.catalogue import of_script
from workbench.manoeuvres.runner import Car, run_jobs
from workbench.runs.sweep import SweepResult, car_with


def with_kpis(result: SweepResult, chunk: int = 512) -> SweepResult:
    """``result`` with the KPIs of the test its script names ([script] manoeuvre), one column each;
    unchanged for a script that names none."""
    program = result.plan.program
    test = of_script(program.script)
    if test is None:
        return result
    paths = [a.path for a in result.plan.axes]
    cars = [Car(car_with(program.params, paths, row), program.preset, program.preset_path)
            for row in result.plan.si_values()]
    per_car = test.run(cars, lambda jobs: run_jobs(jobs, test.channels, chunk), program.script)
    keys = list(dict.fromkeys(k.key for kpis in per_car for k in kpis if k.key != "not_run"))
    first = {k.key: k for kpis in per_car for k in kpis}
    values = np.full((len(keys), len(cars)), np.nan)
    for i, kpis in enumerate(per_car):
        for k in kpis:
            if k.key in keys and k.value is not None:
                values[keys.index(k.key), i] = k.value
    names = tuple((first[key].label, first[key].unit) for key in keys)
    return replace(result, kpi_names=names, kpi_value=values)
