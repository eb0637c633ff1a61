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


def test_the_key_names_a_drivers_course_while_one_is_on_show(carbench_window):
    from workbench.gui.kpi_dock import run_manoeuvre

    window = carbench_window
    assert not any("driver's path" in line for line in window.car_view.legend_lines)
    assert run_manoeuvre(window, "iso3888_2")  # a path between cones
    window.model.advance(5)
    window.model.refresh()
    (line,) = [line for line in window.car_view.legend_lines if "driver's path" in line]
    assert "cones" in line and "preview point" in line
    assert run_manoeuvre(window, "iso4138_circle")  # a circle: a path, no cones
    window.model.advance(5)
    window.model.refresh()
    (line,) = [line for line in window.car_view.legend_lines if "driver's path" in line]
    assert "cones" not in line
    window.model.load_preset("sedan")  # no script: no course
    window.model.refresh()
    assert not any("driver's path" in line for line in window.car_view.legend_lines)
