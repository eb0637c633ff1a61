"""The car view's key names only what it draws for the car on show."""

import pytest


@pytest.mark.parametrize(("preset", "forces", "corners"), [("parking", False, False), ("teaching", False, False),
                                                           ("sedan_single_track", True, False), ("sedan", True, True)])
def test_the_key_lists_tyre_forces_only_for_a_car_that_has_them(carbench_window, preset, forces, corners):
    window = carbench_window
    window.model.load_preset(preset)
    window.model.refresh()
    lines = window.car_view.legend_lines
    assert any("tyre force" in line for line in lines) == forces
    assert any("hollow wheel: lifted" in line for line in lines) == corners
    assert any("velocity" in line for line in lines)
