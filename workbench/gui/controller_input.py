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


class ControllerInput(QObject):
    """Controllers plugged in, their mappings, and their readings per frame."""

    devices_changed = Signal()
    message = Signal(str)  # one line for the status bar
    command = Signal(str)  # a command button went down: reset, pause or pin

    def __init__(self, settings: QSettings, parent: QObject | None = None):
        super().__init__(parent)
        self._settings = settings
        self.unavailable: str | None = None  # why there are no controllers at all
        self.mappings: dict[str, ControllerMapping] = {}  # GUID -> mapping in use
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
        text = self._settings.value(f"{SETTINGS_GROUP}/{device.info.guid}", "", type=str)
        if text:
            try:
                return ControllerMapping.from_dict(json.loads(text))
            except (ValueError, MappingError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
                why = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
                self.message.emit(f"{device.info.name}: the saved mapping ({self._settings.fileName()}, key "
                                  f"{SETTINGS_GROUP}/{device.info.guid}) is not usable ({why}); using the default")
        return default_mapping(device.info)

    def set_mapping(self, device: Device, mapping: ControllerMapping) -> None:
        """Use ``mapping`` for this controller (and every one of its model: same GUID) and save it."""
        self.mappings[device.info.guid] = mapping
        self._settings.setValue(f"{SETTINGS_GROUP}/{device.info.guid}", json.dumps(mapping.to_dict()))

    def reset_mapping(self, device: Device) -> ControllerMapping:
        """Back to the default mapping (the saved one is forgotten)."""
        self._settings.remove(f"{SETTINGS_GROUP}/{device.info.guid}")
        self.mappings[device.info.guid] = mapping = default_mapping(device.info)
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
        for device in added:  # said before the mapping is read: a warning about it is the message left on show
            self.message.emit(f"controller plugged in: {device.info.label}")
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
