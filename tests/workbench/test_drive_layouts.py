"""The four-wheel sedan driven at the front and on all four wheels: what the hunt found on those layouts, kept as
regressions (each made energy in one frame before its fix), with every monitor judged."""

from __future__ import annotations

import pytest

from physics import load_preset
from physics.presets import Preset
from workbench.runs.monitors import check_results
from workbench.runs.replay import replay
from workbench.scripts.format import parse_script
from workbench.scripts.program import compile_script

HEAD = '[script]\nname = "{name}"\npreset = "sedan"\nduration = {duration}\ndt = 0.008333333333333333\n'

# Found by `carbench hunt` on the sedan with body.driven_axle = "front": stability control braked the outer front
# wheel to a stop in a right-hander off the throttle; as it let go, the engine, turning with the differential's
# carrier, sped up with the wheel and nothing paid for it (336 J in one frame).
FRONT_ESC_RELEASE = HEAD.format(name="front-esc-release", duration=8.991667) + """
[[hold]]
keys = ["throttle"]
from = 0.0
to = 5.85

[[hold]]
keys = ["right", "throttle"]
from = 5.85
to = 8.2
"""

# Found with body.driven_axle = "all": the right key tapped every other frame through a right-hander, then off the
# throttle; as stability control let go of the inner rear wheel it had stopped, the centre differential took the
# rear axle for as heavy as its two wheels together while the free one spun up alone (82 J in one frame).
ALL_ESC_RELEASE = HEAD.format(name="all-esc-release", duration=6.3) + """
[[hold]]
keys = ["throttle"]
from = 0.0
to = 0.791667

[[hold]]
keys = ["throttle"]
from = 0.841667
to = 2.3

[[hold]]
keys = ["right", "throttle"]
from = 2.575
to = 3.841667
""" + "".join(f"\n[[hold]]\nkeys = [\"right\"]\nfrom = {(462 + 2 * k) / 120:.6f}\nto = {(463 + 2 * k) / 120:.6f}\n"
              for k in range(32)) + """
[[hold]]
keys = ["right"]
from = 5.816667
to = 6.183333
"""

# Found with body.driven_axle = "all" and clutch-pack differentials: the handbrake at 60 km/h, then a one-frame
# touch of the brake pedal. The carrier's momentum, corrected from the torques, moved the rear wheels the
# handbrake held, and the engine with them (749 J in one frame).
ALL_HANDBRAKE = HEAD.format(name="all-handbrake", duration=3.708333) + """
[[hold]]
keys = ["throttle"]
from = 0.0
to = 3.4

[[hold]]
keys = ["handbrake", "right"]
from = 3.4
to = 3.666667

[[hold]]
keys = ["brake"]
from = 3.7
to = 3.708333
"""

LSD = {"differential.kind": "limited_slip", "differential.preload": 100.0, "differential.ramp": 0.4}


@pytest.mark.parametrize(("text", "changes"), [
    (FRONT_ESC_RELEASE, {"body.driven_axle": "front"}),
    (ALL_ESC_RELEASE, {"body.driven_axle": "all"}),
    (ALL_HANDBRAKE, {"body.driven_axle": "all", **LSD}),
    (ALL_HANDBRAKE, {"body.driven_axle": "all", "differential.centre_kind": "locked"}),
], ids=["front-esc-release", "all-esc-release", "all-handbrake-lsd", "all-handbrake-locked-centre"])
def test_the_hunts_finds_on_the_other_layouts_hold_every_monitor(text, changes):
    sedan = load_preset("sedan")
    car = Preset(f"sedan ({changes['body.driven_axle']}-driven)", None, sedan.params.with_values(changes))
    program = compile_script(parse_script(text, "layout.toml"), preset=car)
    (result,) = replay([program])
    found = check_results([result], everything=True)
    assert found == [], found
    assert result.log.column("speed")[-1] > 1.0  # the car was still moving: the test drove what it claims
