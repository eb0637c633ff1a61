"""The window's game controllers: SDL2 polled on the GUI thread, mappings kept per controller GUID.

:meth:`ControllerInput.pump` runs on every tick of the window's timer (controllers plugged in or
out, command buttons such as pause, which must work while nothing steps); :meth:`ControllerInput.sample`
runs once per simulated frame, so every frame's inputs are read at that frame, whatever the repaint
rate, and a recording of them replays exactly. Where SDL2 cannot be loaded this holds no devices
and says why (:attr:`unavailable`); the window drives with the keyboard as before.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QObject, QSettings, Signal

from physics import KEYS
from workbench.controllers.defaults import default_mapping
from workbench.controllers.mapping import COMMANDS, ControllerMapping, MappingError
from workbench.controllers.sdl import ControllerHub, Device, SdlUnavailable

SETTINGS_GROUP = "controllers"  # QSettings: controllers/<GUID> = the mapping as JSON
REFUSED_SUFFIX = "-refused"  # controllers/<GUID>-refused: a saved mapping that was not usable, kept at the first edit


class ControllerInput(QObject):
    """Controllers plugged in, their mappings, and their readings per frame."""

    devices_changed = Signal()
    message = Signal(str)  # one line for the status bar
    command = Signal(str)  # a command button went down: reset, pause or pin
    mapping_changed = Signal(object)  # a Device whose mapping was edited or reset

    def __init__(self, settings: QSettings, parent: QObject | None = None):
        super().__init__(parent)
        self._settings = settings
        self.unavailable: str | None = None  # why there are no controllers at all
        self.mappings: dict[str, ControllerMapping] = {}  # GUID -> mapping in use
        # GUID -> why its saved mapping was not usable (the default is in use): the dialog says so, and the first
        # edit keeps the saved text under REFUSED_SUFFIX before it saves over it (nothing the user saved is lost).
        self.refused: dict[str, str] = {}
        self._commands_down: dict[int, set[str]] = {}  # instance id -> command buttons held at the last pump
        try:
            self.hub: ControllerHub | None = ControllerHub()
        except SdlUnavailable as exc:
            self.hub = None
            self.unavailable = str(exc)

    @property
    def devices(self) -> list[Device]:
        return [] if self.hub is None else list(self.hub.devices.values())

    # -- mappings ----------------------------------------------------------------------------------

    def mapping(self, device: Device) -> ControllerMapping:
        guid = device.info.guid
        if guid not in self.mappings:
            self.mappings[guid] = self._saved_mapping(device)
        return self.mappings[guid]

    def _saved_mapping(self, device: Device) -> ControllerMapping:
        key = f"{SETTINGS_GROUP}/{device.info.guid}"
        text = self._settings.value(key)  # as stored: a list or a byte array edited into the file is not a mapping
        if text is not None and text != "":
            why = None
            if not isinstance(text, str):
                why = f"a {type(text).__name__}, not a mapping's JSON text"  # read as "" before, without a word
            else:
                try:
                    return ControllerMapping.from_dict(json.loads(text))
                except (ValueError, MappingError, RecursionError) as exc:  # RecursionError: JSON nested deep
                    why = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
            self.refused[device.info.guid] = (f"the saved mapping ({self._settings.fileName()}, key {key}) is not "
                                              f"usable ({why}); using the default")
            self.message.emit(f"{device.info.name}: {self.refused[device.info.guid]}")
        return default_mapping(device.info)

    def _keep_refused(self, device: Device) -> None:
        """Before the first save over a saved mapping that was not usable: keep it beside, under REFUSED_SUFFIX."""
        guid = device.info.guid
        if self.refused.pop(guid, None) is None:
            return
        key = f"{SETTINGS_GROUP}/{guid}"
        kept = key + REFUSED_SUFFIX
        self._settings.setValue(kept, self._settings.value(key))
        self.message.emit(f"{device.info.name}: the saved mapping that was not usable is kept in "
                          f"{self._settings.fileName()}, key {kept}")

    def set_mapping(self, device: Device, mapping: ControllerMapping) -> None:
        """Use ``mapping`` for this controller (and every one of its model: same GUID) and save it."""
        self._keep_refused(device)
        self.mappings[device.info.guid] = mapping
        self._settings.setValue(f"{SETTINGS_GROUP}/{device.info.guid}", json.dumps(mapping.to_dict()))
        self.mapping_changed.emit(device)

    def reset_mapping(self, device: Device) -> ControllerMapping:
        """Back to the default mapping (the saved one is forgotten; one that was not usable is kept beside)."""
        self._keep_refused(device)
        self._settings.remove(f"{SETTINGS_GROUP}/{device.info.guid}")
        self.mappings[device.info.guid] = mapping = default_mapping(device.info)
        self.mapping_changed.emit(device)
        return mapping

    # -- polling -----------------------------------------------------------------------------------

    def pump(self) -> None:
        """Once per tick: controllers plugged in or pulled out, and command buttons that went down."""
        if self.hub is None:
            return
        added, removed = self.hub.pump()
        for device in removed:
            self._commands_down.pop(device.instance_id, None)
            self.message.emit(f"controller unplugged: {device.info.label}")
        # Every device said first, then the mappings read: a warning about one is the message left on show (with a
        # gamepad and a wheel plugged in together, the wheel's line replaced the gamepad's warning).
        for device in added:
            self.message.emit(f"controller plugged in: {device.info.label}")
        for device in added:
            self.mapping(device)
        if added or removed:
            self.devices_changed.emit()
        for device in self.devices:
            mapping = self.mapping(device)
            commands = [b for b, action in mapping.buttons.items() if action in COMMANDS]
            held = mapping.actions(device.pressed(commands))
            before = self._commands_down.get(device.instance_id)
            self._commands_down[device.instance_id] = held
            if before is None:
                continue  # just plugged in: a button already down is not a press
            for action in sorted(held - before):
                self.command.emit(action)

    def sample(self) -> tuple[set[str], dict[str, dict[str, float]]]:
        """Once per frame: the keys the controllers' buttons hold, and each controller's mapped axes."""
        if self.hub is None or not self.hub.devices:
            return set(), {}
        self.hub.update()
        keys: set[str] = set()
        sources = {}
        for device in self.hub.devices.values():
            if not device.attached:  # pulled out since the last pump: SDL reads its axes as 0 (half a pedal)
                continue
            mapping = self.mapping(device)  # only what it maps is read: a frame stays cheap
            keys.update(a for a in mapping.actions(device.pressed(mapping.buttons)) if a in KEYS)
            sources[f"controller {device.instance_id}"] = mapping.sample(device.axes(a.axis for a in mapping.axes))
        return keys, sources

    def refresh(self) -> None:
        """Fresh readings without a frame (the mapping dialog's live view)."""
        if self.hub is not None:
            self.hub.update()

    def close(self) -> None:
        if self.hub is not None:
            self.hub.close()
            self.hub = None
