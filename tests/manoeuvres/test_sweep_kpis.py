"""A sweep of a handling test runs its cars in pieces: the same figures whatever the piece size, and never more than
one piece's runs held at once."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.manoeuvres import sweep_kpis
from workbench.runs.sweep import plan_sweep
from workbench.scripts.format import load_script, resolve_script
from workbench.scripts.program import compile_script


def _plan(script: str, axis: str):
    return plan_sweep(compile_script(load_script(resolve_script(script))), [axis])


@pytest.mark.parametrize("script, axis", [("iso4138_circle", "tyres.b_rear=9:15:5"),  # the KPIs from its own run
                                          ("accel_80_120", "engine.peak_torque=250:400:5")])  # runs of its own
def test_a_handling_sweep_in_pieces_gives_every_car_the_figures_of_one_piece(monkeypatch, script, axis):
    plan = _plan(script, axis)
    whole = sweep_kpis.run_test_sweep(plan, chunk=512)
    sizes: list[int] = []
    real = sweep_kpis.run_jobs

    def counting(jobs, channels, chunk=512, kernel=None):
        sizes.append(len(jobs))
        return real(jobs, channels, chunk, kernel)

    monkeypatch.setattr(sweep_kpis, "run_jobs", counting)
    pieces = sweep_kpis.run_test_sweep(plan, chunk=2)
    assert max(sizes) <= 2 and sum(sizes) >= plan.cars  # two cars at a time, every car run
    assert pieces.car_steps == whole.car_steps
    assert pieces.kpi_names == whole.kpi_names and len(whole.kpi_names) > 0
    for name in ("expect_value", "expect_margin", "measure_value", "kpi_value"):
        a, b = getattr(whole, name), getattr(pieces, name)
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), name
    assert np.isfinite(whole.kpi_value).any()
