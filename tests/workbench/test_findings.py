"""Defects a hunt found and that are not fixed yet, each as its minimal script: a test that fails until the model is
fixed (strict: once it passes, the mark must go and the script joins the shipped ones)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.runs.monitors import check_results
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
from workbench.scripts.program import compile_script

FINDINGS = Path(__file__).parent / "findings"


def _violations(name: str) -> list:
    result = replay([compile_script(load_script(FINDINGS / name))])[0]
    return check_results([result])


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="open: the engine locked to the rear wheels gains more energy than their tyres "
                                       "give while the brake pedal is pressed (carbench hunt --seed 611)")
def test_a_locked_engine_spun_up_by_braked_rear_wheels_makes_no_energy():
    script = load_script(FINDINGS / "locked_engine_brake_spin_up.toml")
    if [m.name for m in script.monitors] != ["energy_gain"]:  # not an assertion: the xfail must not absorb it
        pytest.fail("the finding's script no longer asks the monitor that caught it")
    assert _violations("locked_engine_brake_spin_up.toml") == []
