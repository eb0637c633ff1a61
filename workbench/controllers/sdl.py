"""Game controllers and joysticks through SDL2 (pysdl2, with the library from pysdl2-dll).

SDL2 is imported only when a :class:`ControllerHub` or a :class:`VirtualDevice` is made, never by
the headless runs. Nothing here owns a thread: whoever holds the hub calls :meth:`ControllerHub.pump`
(devices plugged in or out) and :meth:`ControllerHub.update` (fresh readings) where it wants them
sampled, so that readings are taken on that thread at known moments. A device known to SDL's game
controller API is read through it (the standard axis and button names, triggers 0 .. 32767);
anything else (wheels, pedals, sticks) as a plain joystick: ``axis N``, ``button N`` and a hat's
four directions as buttons ``hat N up`` ...
"""

from __future__ import annotations

import ctypes
import importlib
import warnings
from functools import partial

from workbench.controllers.device import SDL_KINDS, DeviceInfo
from workbench.controllers.mapping import RAW_MAX, RAW_MIN

HAT_DIRECTIONS = (("up", 1), ("right", 2), ("down", 4), ("left", 8))  # SDL_HAT_* bits
TRIGGER_RANGE = (0, RAW_MAX)  # a game controller's triggers


class SdlUnavailable(RuntimeError):
    """SDL2 cannot be used here; the message says why in one line."""


def _import_sdl2():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pysdl2 announces where it found the library
        return importlib.import_module("sdl2")


def load_sdl():
    """The ``sdl2`` module, or SdlUnavailable naming what is missing (pysdl2, or the SDL2 library)."""
    try:
        return _import_sdl2()
    except ModuleNotFoundError as exc:
        raise SdlUnavailable(f"pysdl2 is not installed ({exc})") from None
    except (ImportError, RuntimeError, OSError) as exc:  # pysdl2 without a usable SDL2 library
        raise SdlUnavailable(f"the SDL2 library cannot be loaded ({exc})") from None


def sdl_version(sdl) -> str:
    version = sdl.SDL_version()
    sdl.SDL_GetVersion(ctypes.byref(version))
    return f"{version.major}.{version.minor}.{version.patch}"


def _init(sdl, subsystem: int) -> None:
    # Ctrl+C stays the application's: SDL would turn SIGINT into an event nobody reads.
    sdl.SDL_SetHint(sdl.SDL_HINT_NO_SIGNAL_HANDLERS, b"1")
    # No SDL window ever has the focus here; without this SDL may drop a joystick's input.
    sdl.SDL_SetHint(sdl.SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, b"1")
    if sdl.SDL_InitSubSystem(subsystem) != 0:
        raise SdlUnavailable(f"SDL2 cannot open its joystick support: {sdl.SDL_GetError().decode(errors='replace')}")
    # Readings are polled; SDL's event queue would only fill up with copies of them.
    sdl.SDL_JoystickEventState(sdl.SDL_IGNORE)
    sdl.SDL_GameControllerEventState(sdl.SDL_IGNORE)


def _hat_bit(get_hat, joystick, hat: int, bit: int) -> bool:
    return bool(get_hat(joystick, hat) & bit)


def _guid(sdl, index: int) -> str:
    text = ctypes.create_string_buffer(33)
    sdl.SDL_JoystickGetGUIDString(sdl.SDL_JoystickGetDeviceGUID(index), text, 33)
    return text.value.decode("ascii")


class Device:
    """One opened controller: its :class:`DeviceInfo` and its current raw readings."""

    def __init__(self, sdl, index: int):
        self._sdl = sdl
        self._controller = sdl.SDL_GameControllerOpen(index) if sdl.SDL_IsGameController(index) else None
        self._joystick = (sdl.SDL_GameControllerGetJoystick(self._controller) if self._controller
                          else sdl.SDL_JoystickOpen(index))
        if not self._joystick:
            raise SdlUnavailable(f"controller {index} cannot be opened: {sdl.SDL_GetError().decode(errors='replace')}")
        self.instance_id = int(sdl.SDL_JoystickInstanceID(self._joystick))
        name = (sdl.SDL_GameControllerName(self._controller) if self._controller
                else sdl.SDL_JoystickName(self._joystick)) or b"unnamed controller"
        guid = _guid(sdl, index)
        if self._controller:
            gc = self._controller
            axes_ = [a for a in range(sdl.SDL_CONTROLLER_AXIS_MAX) if sdl.SDL_GameControllerHasAxis(gc, a)]
            buttons_ = [b for b in range(sdl.SDL_CONTROLLER_BUTTON_MAX) if sdl.SDL_GameControllerHasButton(gc, b)]
            axes = tuple(sdl.SDL_GameControllerGetStringForAxis(a).decode() for a in axes_)
            buttons = tuple(sdl.SDL_GameControllerGetStringForButton(b).decode() for b in buttons_)
            ranges = tuple(TRIGGER_RANGE if "trigger" in a else (RAW_MIN, RAW_MAX) for a in axes)
            kind = "gamepad"
            self._axis = {n: partial(sdl.SDL_GameControllerGetAxis, gc, a) for n, a in zip(axes, axes_, strict=True)}
            self._button = {n: partial(sdl.SDL_GameControllerGetButton, gc, b)
                            for n, b in zip(buttons, buttons_, strict=True)}
        else:
            j = self._joystick
            n_axes = max(sdl.SDL_JoystickNumAxes(j), 0)
            n_buttons = max(sdl.SDL_JoystickNumButtons(j), 0)
            hats = max(sdl.SDL_JoystickNumHats(j), 0)
            axes = tuple(f"axis {i}" for i in range(n_axes))
            ranges = ((RAW_MIN, RAW_MAX),) * n_axes
            kind_index = sdl.SDL_JoystickGetType(j)
            # SDL_JoystickType counts from 1 (0 is unknown); "joystick" sat at 3 here, and every kind from SDL's
            # arcade stick on was named as the one before it (a throttle as an arcade pad)
            kind = SDL_KINDS[kind_index - 1] if 1 <= kind_index <= len(SDL_KINDS) else "joystick"
            kind = "joystick" if kind == "gamepad" else kind  # a gamepad SDL has no mapping for
            self._axis = {n: partial(sdl.SDL_JoystickGetAxis, j, i) for i, n in enumerate(axes)}
            self._button = {f"button {i}": partial(sdl.SDL_JoystickGetButton, j, i) for i in range(n_buttons)}
            for h in range(hats):
                for direction, bit in HAT_DIRECTIONS:
                    self._button[f"hat {h} {direction}"] = partial(_hat_bit, sdl.SDL_JoystickGetHat, j, h, bit)
            buttons = tuple(self._button)
        self.info = DeviceInfo(guid, name.decode(errors="replace"), kind, axes, buttons, ranges)

    @property
    def attached(self) -> bool:
        return bool(self._sdl.SDL_JoystickGetAttached(self._joystick))

    def axes(self, names=None) -> dict[str, int]:
        """The raw reading of every axis (or of those ``names``), by name."""
        readers = self._axis if names is None else {n: self._axis[n] for n in names if n in self._axis}
        return {name: read() for name, read in readers.items()}

    def pressed(self, names=None) -> frozenset[str]:
        """The buttons (or those of ``names``) that are down; a hat's directions count as buttons."""
        readers = self._button if names is None else {n: self._button[n] for n in names if n in self._button}
        return frozenset(name for name, read in readers.items() if read())

    def close(self) -> None:
        if self._controller:
            self._sdl.SDL_GameControllerClose(self._controller)
        elif self._joystick:
            self._sdl.SDL_JoystickClose(self._joystick)
        self._controller = self._joystick = None
        self._axis, self._button = {}, {}  # their handles are gone: nothing reads them again


class ControllerHub:
    """The controllers plugged in, kept up to date by :meth:`pump`; SdlUnavailable when SDL2 cannot be used."""

    def __init__(self):
        self._sdl = load_sdl()
        _init(self._sdl, self._sdl.SDL_INIT_GAMECONTROLLER)
        self.version = sdl_version(self._sdl)
        self.devices: dict[int, Device] = {}  # instance id -> opened device
        self._closed = False

    def pump(self) -> tuple[list[Device], list[Device]]:
        """Pick up controllers plugged in and drop those pulled out: (added, removed)."""
        sdl = self._sdl
        sdl.SDL_JoystickUpdate()  # also where SDL notices devices coming and going
        present = {}
        for index in range(max(sdl.SDL_NumJoysticks(), 0)):
            present[int(sdl.SDL_JoystickGetDeviceInstanceID(index))] = index
        removed = [d for i, d in self.devices.items() if i not in present or not d.attached]
        for device in removed:
            del self.devices[device.instance_id]
            device.close()
        added = []
        for instance, index in present.items():
            if instance not in self.devices and instance >= 0:
                try:
                    device = Device(sdl, index)
                except SdlUnavailable:
                    continue  # gone again between the count and the open
                self.devices[device.instance_id] = device
                added.append(device)
        return added, removed

    def update(self) -> None:
        """Take fresh readings of every controller (they hold until the next update)."""
        self._sdl.SDL_JoystickUpdate()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for device in self.devices.values():
            device.close()
        self.devices.clear()
        self._sdl.SDL_QuitSubSystem(self._sdl.SDL_INIT_GAMECONTROLLER)


GAMEPAD_AXES = ("leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger")
GAMEPAD_BUTTONS = ("a", "b", "x", "y", "back", "guide", "start", "leftstick", "rightstick", "leftshoulder",
                   "rightshoulder", "dpup", "dpdown", "dpleft", "dpright")


class VirtualDevice:
    """A controller that exists only in this process (SDL_JoystickAttachVirtualEx), driven by code: for the
    tests, the screenshots and trying the mapping out without hardware.

    ``kind`` ``"gamepad"`` is a standard game controller (axes and buttons in the order of
    :data:`GAMEPAD_AXES` and :data:`GAMEPAD_BUTTONS`); ``"wheel"`` a wheel with ``axes`` axes
    (wheel, then pedals), ``buttons`` buttons and one hat. Values set take effect at the next
    :meth:`ControllerHub.update` or pump, as a real device's would. It starts at rest: sticks and
    wheel centred, triggers released, pedals up (at the top of their range, as wheels report them).
    """

    def __init__(self, kind: str = "gamepad", name: str | None = None, axes: int = 4, buttons: int = 8):
        sdl = self._sdl = load_sdl()
        _init(sdl, sdl.SDL_INIT_JOYSTICK)
        desc = sdl.SDL_VirtualJoystickDesc()
        desc.version = sdl.SDL_VIRTUAL_JOYSTICK_DESC_VERSION
        if kind == "gamepad":
            desc.type = sdl.SDL_JOYSTICK_TYPE_GAMECONTROLLER
            desc.naxes, desc.nbuttons = len(GAMEPAD_AXES), len(GAMEPAD_BUTTONS)
            desc.axis_mask, desc.button_mask = (1 << desc.naxes) - 1, (1 << desc.nbuttons) - 1
        elif kind == "wheel":
            desc.type = sdl.SDL_JOYSTICK_TYPE_WHEEL
            desc.naxes, desc.nbuttons, desc.nhats = axes, buttons, 1
        else:
            sdl.SDL_QuitSubSystem(sdl.SDL_INIT_JOYSTICK)
            raise ValueError(f"kind {kind!r}: a virtual device is a gamepad or a wheel")
        self._name = ctypes.c_char_p((name or f"carbench virtual {kind}").encode())  # SDL keeps the pointer
        desc.name = self._name
        index = sdl.SDL_JoystickAttachVirtualEx(ctypes.byref(desc))
        self._joystick = sdl.SDL_JoystickOpen(index) if index >= 0 else None
        if not self._joystick:
            problem = sdl.SDL_GetError().decode(errors="replace")
            sdl.SDL_QuitSubSystem(sdl.SDL_INIT_JOYSTICK)
            raise SdlUnavailable(f"a virtual {kind} cannot be attached: {problem}")
        self.instance_id = int(sdl.SDL_JoystickInstanceID(self._joystick))
        self.kind = kind
        # At rest as a real one is: triggers released, pedals up (reading the top of their range).
        rest = {4: RAW_MIN, 5: RAW_MIN} if kind == "gamepad" else dict.fromkeys(range(1, desc.naxes), RAW_MAX)
        for axis, raw in rest.items():
            self.set_axis(axis, raw)

    def set_axis(self, axis: int | str, raw: int) -> None:
        """Move an axis (its index, or for a gamepad its name) to a raw reading in -32768 .. 32767.

        A gamepad's triggers read 0 at -32768 and 32767 at 32767, as SDL's mapping of them does.
        """
        index = GAMEPAD_AXES.index(axis) if isinstance(axis, str) else axis
        self._sdl.SDL_JoystickSetVirtualAxis(self._joystick, index, int(min(max(raw, RAW_MIN), RAW_MAX)))

    def set_button(self, button: int | str, down: bool) -> None:
        index = GAMEPAD_BUTTONS.index(button) if isinstance(button, str) else button
        self._sdl.SDL_JoystickSetVirtualButton(self._joystick, index, 1 if down else 0)

    def set_hat(self, hat: int, bits: int) -> None:
        self._sdl.SDL_JoystickSetVirtualHat(self._joystick, hat, bits)

    def detach(self) -> None:
        """Unplug it (the hub drops it at its next pump)."""
        if self._joystick is None:
            return
        sdl = self._sdl
        index = next((i for i in range(sdl.SDL_NumJoysticks())
                      if sdl.SDL_JoystickGetDeviceInstanceID(i) == self.instance_id), -1)
        sdl.SDL_JoystickClose(self._joystick)
        self._joystick = None
        if index >= 0:
            sdl.SDL_JoystickDetachVirtual(index)
        sdl.SDL_QuitSubSystem(sdl.SDL_INIT_JOYSTICK)
