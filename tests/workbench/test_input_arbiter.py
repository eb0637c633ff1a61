"""The keyboard beside a controller and the mouse (analog driving): per control, the last input to move wins."""

from __future__ import annotations

from workbench.controllers.arbiter import KEYBOARD, InputArbiter


def test_a_resting_controller_takes_nothing_from_the_keyboard():
    arbiter = InputArbiter()
    pad = {"steer": 0.0, "throttle_pedal": 0.0, "brake_pedal": 0.0}
    assert arbiter.frame({"throttle"}, {"pad": pad}) == {}
    assert arbiter.frame({"throttle", "left"}, {"pad": dict(pad, steer=0.03)}) == {}  # a twitch is not a move


def test_the_last_input_to_move_drives_each_control():
    arbiter = InputArbiter()
    pad = {"steer": 0.0, "throttle_pedal": 0.0}
    arbiter.frame(set(), {"pad": pad})
    assert arbiter.frame(set(), {"pad": dict(pad, throttle_pedal=0.5)}) == {"throttle_pedal": 0.5}
    # the throttle key goes down: the keys drive the throttle again, the trigger is still at 0.5
    assert arbiter.frame({"throttle"}, {"pad": dict(pad, throttle_pedal=0.5)}) == {}
    assert arbiter.owner["throttle_pedal"] == KEYBOARD
    assert arbiter.frame({"throttle"}, {"pad": dict(pad, throttle_pedal=0.52)}) == {}  # held key, trigger still
    # the trigger moves on from where it gave up: it takes the throttle back (the key is still held)
    assert arbiter.frame({"throttle"}, {"pad": dict(pad, throttle_pedal=0.6)}) == {"throttle_pedal": 0.6}
    # steering is a control of its own: Left takes it, the throttle stays the pad's
    assert arbiter.frame({"throttle", "left"}, {"pad": dict(pad, throttle_pedal=0.6, steer=0.2)}) == {
        "throttle_pedal": 0.6}


def test_while_a_source_drives_every_small_change_goes_through():
    arbiter = InputArbiter()
    arbiter.frame(set(), {"pad": {"steer": 0.0}})
    values = [0.1, 0.1001, 0.1002, 0.09, 0.0]
    assert [arbiter.frame(set(), {"pad": {"steer": v}}) for v in values] == [{"steer": v} for v in values]


def test_mouse_and_controller_share_steer_by_who_moved_last():
    arbiter = InputArbiter()
    arbiter.frame(set(), {"pad": {"steer": 0.0}, "mouse": {"steer": 0.4}})
    assert arbiter.frame(set(), {"pad": {"steer": 0.0}, "mouse": {"steer": 0.3}}) == {"steer": 0.3}
    assert arbiter.frame(set(), {"pad": {"steer": -0.5}, "mouse": {"steer": 0.3}}) == {"steer": -0.5}
    assert arbiter.frame(set(), {"pad": {"steer": -0.5}, "mouse": {"steer": 0.1}}) == {"steer": 0.1}


def test_a_source_that_goes_away_hands_its_controls_back_and_takes_nothing_when_it_returns():
    arbiter = InputArbiter()
    arbiter.frame(set(), {"pad": {"brake_pedal": 0.0}})
    assert arbiter.frame(set(), {"pad": {"brake_pedal": 0.8}}) == {"brake_pedal": 0.8}
    assert arbiter.frame(set(), {}) == {}  # unplugged
    assert arbiter.owner["brake_pedal"] == KEYBOARD
    assert arbiter.frame(set(), {"pad": {"brake_pedal": 0.8}}) == {}  # plugged back in, held: not a move
    assert arbiter.frame(set(), {"pad": {"brake_pedal": 0.6}}) == {"brake_pedal": 0.6}
    arbiter.release()
    assert arbiter.frame(set(), {"pad": {"brake_pedal": 0.6}}) == {}


def test_a_move_of_exactly_the_threshold_never_takes_a_control_wherever_it_starts():
    """Mapped values have four decimals, and a move of exactly 0.05 from 0.5 took the throttle where one from 0.1 did
    not (0.15 - 0.1 is 0.04999999999999999 in binary, 0.55 - 0.5 is 0.050000000000000044). It takes more than 0.05."""
    for start in [k / 100 for k in range(0, 96)]:
        for control in ("throttle_pedal", "steer"):
            arbiter = InputArbiter()
            arbiter.frame(set(), {"pad": {control: start}})
            assert arbiter.frame(set(), {"pad": {control: round(start + 0.05, 4)}}) == {}, (control, start)
            assert arbiter.frame(set(), {"pad": {control: round(start + 0.0501, 4)}}) != {}, (control, start)


def test_an_edited_mapping_is_no_move_of_the_axis():
    """Inverting a resting trigger's mapping made it read 1.0: judged against its reading before the edit, that was
    a move, and the brake went full on from the keys. After rebase() the new reading is where it is judged from."""
    arbiter = InputArbiter()
    arbiter.frame(set(), {"pad": {"steer": 0.0, "brake_pedal": 0.0}})
    arbiter.rebase("pad")
    assert arbiter.frame(set(), {"pad": {"steer": 0.0, "brake_pedal": 1.0}}) == {}  # the inverted trigger at rest
    assert arbiter.owner["brake_pedal"] == KEYBOARD
    assert arbiter.frame(set(), {"pad": {"steer": 0.0, "brake_pedal": 0.5}}) == {"brake_pedal": 0.5}  # then moved
    # A control the source drives goes back to the keys too: the trigger it drove the brake with, let go and then
    # inverted, read 1.0 and braked at once.
    arbiter.frame(set(), {"pad": {"steer": 0.0, "brake_pedal": 0.0}})
    arbiter.rebase("pad")
    assert arbiter.frame(set(), {"pad": {"steer": 0.0, "brake_pedal": 1.0}}) == {}
    assert arbiter.owner["brake_pedal"] == KEYBOARD
