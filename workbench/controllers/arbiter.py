"""Which input drives each analog control on a frame: the keys, a controller's axis or the mouse.

The last input to move wins, per control. Keys "move" when one of the control's keys goes down (Left
or Right for steer, Up for the throttle ...); an analog source when its value leaves the value it
had when it last gave the control up by more than :data:`MOVE` (so a resting trigger or a
centred stick never takes a control from the keyboard, and the first reading of a controller
just plugged in takes nothing). A source that goes away (unplugged, mouse steering off) hands its
controls back to the keys. Headless and deterministic: the window asks it once per frame.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from physics import ANALOG

KEYS_OF = {"steer": ("left", "right"), "throttle_pedal": ("throttle",), "brake_pedal": ("brake",),
           "clutch_pedal": ("clutch",)}
"""The keys that drive each analog control."""
MOVE = 0.05  # how far an analog source must move to take the control: 5% of a pedal's 0..1, 2.5% of steer's -1..1
KEYBOARD = "keys"


class InputArbiter:
    """Keeps, per analog control, the source that drives it (:data:`KEYBOARD` or a source's name)."""

    def __init__(self):
        self.owner: dict[str, str] = dict.fromkeys(ANALOG, KEYBOARD)
        self._anchor: dict[tuple[str, str], float] = {}  # (source, control) -> value it is judged against
        self._keys: frozenset[str] = frozenset()

    def frame(self, keys: Iterable[str], sources: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
        """One frame: ``keys`` held now, ``sources`` each analog source's values by control.

        Returns the analog overrides in force (the controls a source drives, with its value); the
        controls left out follow the keys.
        """
        held = frozenset(keys)
        pressed = held - self._keys
        self._keys = held
        for control in ANALOG:
            owner = self.owner[control]
            if owner != KEYBOARD and control not in sources.get(owner, {}):
                self.owner[control] = KEYBOARD  # the source went away
        for name, values in sources.items():
            for control, value in values.items():
                anchor = self._anchor.setdefault((name, control), value)
                if self.owner[control] == name:
                    self._anchor[name, control] = value
                elif round(abs(value - anchor), 4) > MOVE:  # mapped values have four decimals: 0.15 - 0.1 is a
                    # move of 0.05, not of 0.04999999999999999 (nor 0.5000000000000001 - ... above it)
                    self.owner[control] = name
                    self._anchor[name, control] = value
        for control in ANALOG:
            if pressed.intersection(KEYS_OF[control]):
                self.owner[control] = KEYBOARD  # a key pressed on the frame an axis moved wins: it is deliberate
        for name, control in list(self._anchor):
            if control not in sources.get(name, {}):
                del self._anchor[name, control]  # gone: when it is back, its first reading takes nothing
        out = {}
        for control in ANALOG:
            owner = self.owner[control]
            if owner != KEYBOARD:
                out[control] = sources[owner][control]
        return out

    def rebase(self, source: str) -> None:
        """``source``'s mapping changed: an edit is no move. Its controls go back to the keys and what it reads now
        is where they are judged from (inverting a resting trigger read as the brake pressed, and took it from the
        keys; one the source drove braked at once), so it takes one again only when it moves."""
        for control in ANALOG:
            if self.owner[control] == source:
                self.owner[control] = KEYBOARD
        for name, control in list(self._anchor):
            if name == source:
                del self._anchor[name, control]  # its next reading anchors it, and takes nothing

    def release(self) -> None:
        """Every control back to the keys (a reset, a new car): the sources must move again to take one."""
        self.owner = dict.fromkeys(ANALOG, KEYBOARD)
        self._anchor.clear()
