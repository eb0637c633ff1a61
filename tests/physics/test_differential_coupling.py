"""physics.differential.coupling: the coupling a differential passes is held to its locking torque at the torque that
flows with that coupling (an engine locked to the carrier makes the torque depend on the coupling)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from physics.differential import LOCKED_CAPACITY, capacity, coupling

torques = st.floats(-5000.0, 5000.0, allow_nan=False)


@settings(deadline=None)  # the first call compiles
@given(lock=torques, free=torques, slope=st.floats(-1.5, 1.5), fixed=st.floats(0.0, 1000.0),
       share=st.floats(0.0, 1.0))
def test_the_coupling_is_what_holds_or_the_locking_torque_at_the_torque_that_then_flows(lock, free, slope, fixed, share):
    tc, held = coupling(lock, free, slope, fixed, share)
    most = 0.5 * (fixed + share * abs(free + slope * tc))  # the capacity at the torque that flows with tc
    if held:
        assert tc == lock and abs(lock) <= most
    else:
        assert abs(tc) <= abs(lock) and tc * lock >= 0.0
        assert abs(abs(tc) - most) <= 1e-9 * max(1.0, most)  # slips at its locking torque, not below nor above


def test_the_kinds_capacities():
    assert capacity(0, 100.0, 0.4, 3.0) == (0.0, 0.0)  # open
    assert capacity(1, 100.0, 0.4, 3.0) == (LOCKED_CAPACITY, 0.0)  # locked
    assert capacity(2, 100.0, 0.4, 3.0) == (100.0, 0.4)  # clutch pack: preload and ramp
    assert capacity(3, 100.0, 0.4, 3.0) == (0.0, 0.5)  # torque sensing: (B - 1) / (B + 1)
    assert coupling(50.0, 100.0, 0.3, 0.0, 0.0) == (0.0, False)  # an open one passes nothing across
