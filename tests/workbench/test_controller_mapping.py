"""Controller mappings (analog driving): dead zone, curve, inversion and calibration with known values,
first as arithmetic, then on a virtual SDL2 axis read back through the controller hub; the defaults
for a gamepad and a wheel; mappings saved and read back, and bad ones refused."""

from __future__ import annotations

import pytest

from workbench.controllers.defaults import default_mapping
from workbench.controllers.mapping import AxisMapping, Calibrator, ControllerMapping, MappingError
from workbench.controllers.sdl import ControllerHub


def raw_at(fraction: float, low: int = -32768, high: int = 32767) -> int:
    """The raw reading a fraction of the way along [low, high] (exact for the fractions used here)."""
    return round(low + fraction * (high - low))


def test_a_linear_steer_spans_full_lock_with_the_high_end_steering_right():
    steer = AxisMapping("axis 0", "steer")
    assert steer.apply(-32768) == 1.0 and steer.apply(32767) == -1.0  # positive steer is left (SPEC 4)
    assert steer.apply(raw_at(0.5)) == 0.0 and steer.apply(raw_at(0.75)) == -0.5
    assert steer.apply(-40000) == 1.0  # beyond the range: clipped


def test_dead_zone_then_curve_with_known_values():
    # steer: x = 2 * fraction - 1; dead zone 0.1 -> (|x| - 0.1) / 0.9; power 2 squares it
    steer = AxisMapping("axis 0", "steer", dead_zone=0.1, curve="power", exponent=2.0)
    assert steer.apply(raw_at(0.52)) == 0.0  # x = 0.04, inside the dead zone
    assert steer.apply(raw_at(0.55)) == 0.0  # x = 0.1, its edge
    assert steer.apply(raw_at(0.775)) == pytest.approx(-0.25, abs=1e-4)  # x = 0.55 -> 0.5 -> 0.25, to the right
    assert steer.apply(raw_at(0.225)) == pytest.approx(0.25, abs=1e-4)  # the mirror image, to the left
    assert steer.apply(32767) == -1.0  # full travel is still full lock
    pedal = AxisMapping("axis 1", "throttle_pedal", dead_zone=0.2, curve="power", exponent=0.5)
    assert pedal.apply(raw_at(0.2)) == 0.0
    assert pedal.apply(raw_at(0.36)) == pytest.approx(0.4472, abs=1e-4)  # ((0.36 - 0.2) / 0.8) ** 0.5
    assert pedal.apply(32767) == 1.0


def test_inversion_and_a_calibrated_range():
    brake = AxisMapping("axis 2", "brake_pedal", invert=True).calibrated(-20000, 24000)
    assert brake.apply(24000) == 0.0 and brake.apply(-20000) == 1.0
    assert brake.apply(2000) == 0.5  # half way along the calibrated travel
    assert brake.apply(13000) == 0.25


def test_a_steering_axis_calibrated_unevenly_keeps_its_centre_and_scales_each_side():
    """A wheel that reaches -29000 one way and 32767 the other steered 6% of its lock with the wheel straight: the
    middle of the calibrated travel was taken for the centre."""
    steer = AxisMapping("axis 0", "steer").calibrated(-29000, 32767)
    assert steer.apply(0) == 0.0
    assert steer.apply(-29000) == 1.0 and steer.apply(32767) == -1.0  # full lock each way
    assert steer.apply(-14500) == 0.5 and steer.apply(16384) == pytest.approx(-0.5, abs=1e-4)
    assert AxisMapping("axis 0", "steer", invert=True).calibrated(-29000, 32767).apply(-14500) == -0.5
    off = AxisMapping("axis 0", "steer").calibrated(4000, 30000)  # a range that does not hold 0: its middle
    assert off.apply(17000) == 0.0 and off.apply(30000) == -1.0
    with pytest.raises(MappingError, match="must reach at least 2048 to each side of its centre"):
        AxisMapping("axis 0", "steer").calibrated(-1000, 32767)
    assert AxisMapping("axis 2", "brake_pedal").calibrated(-1000, 32767).apply(-1000) == 0.0  # a pedal has no centre


def test_values_are_rounded_to_four_decimals_and_never_negative_zero():
    steer = AxisMapping("axis 0", "steer")
    values = [steer.apply(raw) for raw in range(-32768, 32768, 97)]
    assert all(v == round(v, 4) and len(repr(v)) <= 7 for v in values)
    assert repr(AxisMapping("a", "steer").apply(0)) == "0.0"


def test_calibration_on_a_virtual_wheel_with_known_readings(virtual_wheel):
    """A pedal moved through part of its travel on a virtual SDL2 wheel: the range found, then mapped values."""
    hub = ControllerHub()
    try:
        (device,) = hub.pump()[0]
        calibrator = Calibrator()
        for raw in (32767, 20000, 4000, -12000, -16000, -9000, 30000):  # down from rest, most of the way, back
            virtual_wheel.set_axis(2, raw)
            hub.update()
            calibrator.feed(device.axes()["axis 2"])
        assert calibrator.result() == (-16000, 32767)
        mapping = default_mapping(device.info)
        brake = mapping.axis_for("axis 2")
        assert (brake.control, brake.invert) == ("brake_pedal", True)
        brake = brake.calibrated(*calibrator.result())
        virtual_wheel.set_axis(2, -16000)
        hub.update()
        assert brake.apply(device.axes()["axis 2"]) == 1.0  # the end of the travel found is full brake
        virtual_wheel.set_axis(2, 8384)  # half way back to rest: 1 - 0.5, past the 2% dead zone
        hub.update()
        assert brake.apply(device.axes()["axis 2"]) == pytest.approx((0.5 - 0.02) / 0.98, abs=1e-4)
        virtual_wheel.set_axis(0, 16384)
        hub.update()
        assert mapping.sample(device.axes())["steer"] == pytest.approx(-0.5, abs=1e-4)
    finally:
        hub.close()


def test_a_control_that_barely_moved_is_not_a_calibration():
    calibrator = Calibrator()
    for raw in (100, 900, 2000):
        calibrator.feed(raw)
    with pytest.raises(MappingError, match="moved over 1900 .* move it through its whole travel"):
        calibrator.result()


def test_the_gamepad_default_steers_with_the_left_stick_and_drives_on_the_triggers(virtual_gamepad):
    hub = ControllerHub()
    try:
        (device,) = hub.pump()[0]
        mapping = default_mapping(device.info)
        assert {a.axis: a.control for a in mapping.axes} == {
            "leftx": "steer", "righttrigger": "throttle_pedal", "lefttrigger": "brake_pedal"}
        assert mapping.buttons["rightshoulder"] == "gear_up" and mapping.buttons["start"] == "pause"
        assert mapping.sample(device.axes()) == {"steer": 0.0, "throttle_pedal": 0.0, "brake_pedal": 0.0}  # at rest
        virtual_gamepad.set_axis("righttrigger", 0)  # half way: a trigger reads 0 .. 32767
        virtual_gamepad.set_axis("leftx", -32768)
        virtual_gamepad.set_button("a", True)
        hub.update()
        sample = mapping.sample(device.axes())
        assert sample["throttle_pedal"] == pytest.approx((0.5 - 0.02) / 0.98, abs=1e-4)
        assert sample["steer"] == 1.0  # full left
        assert mapping.actions(device.pressed()) == {"handbrake"}
    finally:
        hub.close()


def test_the_wheel_default_steers_with_the_first_axis_and_has_inverted_pedals(virtual_wheel):
    hub = ControllerHub()
    try:
        (device,) = hub.pump()[0]
        assert device.info.kind == "wheel"
        mapping = default_mapping(device.info)
        assert [(a.axis, a.control, a.invert) for a in mapping.axes] == [
            ("axis 0", "steer", False), ("axis 1", "throttle_pedal", True), ("axis 2", "brake_pedal", True),
            ("axis 3", "clutch_pedal", True)]
        assert mapping.buttons == {"button 0": "gear_up", "button 1": "gear_down"}
        assert set(mapping.sample(device.axes()).values()) == {0.0}  # at rest: centred, pedals up
        virtual_wheel.set_hat(0, 1 | 2)  # up and right on the hat
        virtual_wheel.set_button(0, True)
        hub.update()
        assert device.pressed() == {"button 0", "hat 0 up", "hat 0 right"}
        assert mapping.actions(device.pressed()) == {"gear_up"}
    finally:
        hub.close()


def test_a_wheel_with_fewer_than_two_buttons_shifts_on_its_hat_up_and_down():
    """The hat's directions are buttons too: a wheel with none of its own got the hat's up for gear_up and its
    right for gear_down."""
    from workbench.controllers.device import DeviceInfo

    hat_only = DeviceInfo("0" * 32, "wheel", "wheel", ("axis 0",), ("hat 0 up", "hat 0 right", "hat 0 down",
                                                                     "hat 0 left"), ((-32768, 32767),))
    assert default_mapping(hat_only).buttons == {"hat 0 up": "gear_up", "hat 0 down": "gear_down"}
    one = DeviceInfo("0" * 32, "wheel", "wheel", ("axis 0",), ("button 0", "hat 0 up", "hat 0 right", "hat 0 down",
                                                               "hat 0 left"), ((-32768, 32767),))
    assert default_mapping(one).buttons == {"hat 0 up": "gear_up", "hat 0 down": "gear_down"}
    bare = DeviceInfo("0" * 32, "wheel", "wheel", ("axis 0",), ("button 0",), ((-32768, 32767),))
    assert default_mapping(bare).buttons == {"button 0": "gear_up"}


def test_a_mapping_round_trips_through_its_document_and_bad_documents_are_refused():
    mapping = ControllerMapping((AxisMapping("leftx", "steer", dead_zone=0.1, curve="power", exponent=1.7,
                                             low=-30000, high=31000),), {"a": "handbrake", "x": "pin"})
    assert ControllerMapping.from_dict(mapping.to_dict()) == mapping
    for bad, reason in [
        ([], "a table of `axes` and `buttons`"),
        ({"axes": [{"axis": "leftx"}]}, "needs `axis` and `control`"),
        ({"axes": [{"axis": "leftx", "control": "steer", "dead_zone": "big"}]}, "`dead_zone` = 'big' has the wrong"),
        ({"axes": [{"axis": "leftx", "control": "steer", "invert": 1}]}, "`invert` = 1 has the wrong type"),
        ({"axes": [{"axis": "leftx", "control": "wings"}]}, "control 'wings' is not one of"),
        ({"axes": [{"axis": "leftx", "control": "steer", "dead_zone": 0.7}]}, "dead zone 0.7 is outside 0 .. 0.5"),
        ({"axes": [{"axis": "leftx", "control": "steer", "exponent": 9}]}, "exponent 9 is outside 0.2 .. 5"),
        ({"axes": [{"axis": "leftx", "control": "steer", "low": 100, "high": 200}]}, "span at least 4096"),
        ({"axes": [{"axis": "leftx", "control": "steer"}, {"axis": "rightx", "control": "steer"}]},
         "steer is driven by two axes"),
        ({"buttons": {"a": "fly"}}, "action 'fly' is not one of"),
    ]:
        with pytest.raises(MappingError, match=reason.replace("(", r"\(").replace(")", r"\)")):
            ControllerMapping.from_dict(bad)


def test_mapping_an_axis_to_a_control_takes_it_from_the_axis_that_had_it():
    mapping = ControllerMapping((AxisMapping("leftx", "steer"), AxisMapping("lefttrigger", "brake_pedal")))
    moved = mapping.with_axis(AxisMapping("rightx", "steer"), "rightx")
    assert {a.axis: a.control for a in moved.axes} == {"lefttrigger": "brake_pedal", "rightx": "steer"}
    assert {a.axis for a in moved.with_axis(None, "rightx").axes} == {"lefttrigger"}
    assert mapping.with_button("a", "start").with_button("a", None).buttons == {}


@pytest.mark.parametrize("readings", [(0, -8000, -16000, -32768, -20000, 0), (-32768, -5000), (4000, 32767)])
def test_a_steering_calibration_that_went_one_way_only_is_refused(readings):
    """Turned left only and back, the range -32768 .. 0 was taken: its middle became straight ahead, the wheel at
    rest steered full lock and turning left steered right. A pedal's range needs no centre."""
    calibrator = Calibrator()
    for raw in readings:
        calibrator.feed(raw)
    with pytest.raises(MappingError, match="turn it all the way to both sides of straight ahead"):
        calibrator.result(steering=True)
    assert calibrator.result() == (min(readings), max(readings))  # fine for a pedal


def test_a_steering_calibration_through_both_sides_is_taken():
    calibrator = Calibrator()
    for raw in (0, -30000, 0, 25000, 0):
        calibrator.feed(raw)
    assert calibrator.result(steering=True) == (-30000, 25000)


def test_a_gamepad_without_triggers_steers_and_leaves_the_pedals_to_the_keys():
    """A gamepad SDL knows with sticks but no triggers got the wheel layout: its centred sticks were pedals read half
    down (0.49), and the throttle stuck there once the stick had moved; its A and B shifted."""
    from workbench.controllers.device import DeviceInfo

    info = DeviceInfo("00" * 16, "pad", "gamepad", ("leftx", "lefty", "rightx", "righty"), ("a", "b", "start"))
    mapping = default_mapping(info)
    assert [(a.axis, a.control) for a in mapping.axes] == [("leftx", "steer")]
    assert mapping.sample({"leftx": 0, "lefty": 0, "rightx": 0, "righty": 0}) == {"steer": 0.0}
    assert mapping.buttons == {"a": "handbrake", "b": "clutch", "start": "pause"}


def test_a_wrong_type_in_a_saved_axis_names_the_axis():
    with pytest.raises(MappingError, match=r"axis 'righttrigger': `low` = 0.0 has the wrong type"):
        ControllerMapping.from_dict({"axes": [{"axis": "leftx", "control": "steer"},
                                              {"axis": "righttrigger", "control": "throttle_pedal", "low": 0.0}]})
