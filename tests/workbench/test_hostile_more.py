"""More hostile use of the command line and of files: each case broke a promise of the README before its fix.

In-process calls and short scripts only (the suite is at the edge of its time budget).
"""

from __future__ import annotations

import json
import math
import os
import signal

import pytest
from cli_calls import run, snapshot

ANGLES = ('[script]\nname = "angles"\npreset = "sedan"\nduration = 1.0\n'
          '[[hold]]\nkeys = ["throttle", "left"]\nfrom = 0.0\nto = 1.0\n'
          '[[expect]]\nchannel = "steer"\nat = 0.5\nmin = 0.01\n'
          '[[measure]]\nname = "yaw"\nchannel = "yaw_rate"\nfrom = 0.0\nto = 1.0\nreduce = "max"\n'
          '[[measure]]\nname = "turned"\nchannel = "steer"\nfrom = 0.0\nto = 1.0\nfirst_time_above = 0.01\n')


# -- replay --json in display units ---------------------------------------------------------------------------------

def test_replay_json_gives_values_in_display_units_as_the_table_does(tmp_path, capsys):
    """--json gave the steer's bound and measured value in radians (0.01, 0.55) under "unit": "rad" where the table
    and every other output (sweep --json, compare --json, the report) show degrees."""
    script = tmp_path / "angles.toml"
    script.write_text(ANGLES, encoding="utf-8")
    code, out, err = run(["replay", str(script), "--json"], capsys)
    assert code == 0, err
    (doc,) = json.loads(out)["scripts"]
    (expect,) = doc["expectations"]
    assert expect["unit"] == "deg" and expect["min"] == pytest.approx(math.degrees(0.01))
    assert expect["measured"] > 1.0  # degrees: full lock's share after half a second, far above 1 rad's worth
    yaw, turned = doc["measures"]
    assert yaw["unit"] == "deg/s" and yaw["value"] > 5.0
    assert turned["unit"] == "s" and turned["threshold"] == pytest.approx(math.degrees(0.01))
    assert turned["threshold_unit"] == "deg"
    code, table, err = run(["replay", str(script)], capsys)
    assert f"{expect['measured']:.6g} deg" in table and f"{yaw['value']:.6g} deg/s" in table
    assert "first time above 0.572958 deg" in table  # the table's threshold in degrees too
