"""``carbench devices``: the game controllers, wheels and joysticks SDL2 sees, with their axes and buttons.

Headless (no Qt). Each device is listed with its GUID (what the window saves its mapping under),
its kind, every axis with its raw reading now, every button (those held now marked), and the
mapping it starts with in the window. Exit 0 (also with none plugged in), 2 when SDL2 cannot be loaded.
"""

from __future__ import annotations

import json

from workbench.controllers.defaults import default_mapping
from workbench.controllers.sdl import ControllerHub, SdlUnavailable
from workbench.streams import emit, say

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def describe(device) -> dict:
    """One device as ``--json`` prints it."""
    info = device.info
    axes, pressed = device.axes(), device.pressed()
    return {"guid": info.guid, "name": info.name, "kind": info.kind,
            "axes": [{"name": a, "raw": axes[a], "range": list(info.axis_range(a))} for a in info.axes],
            "buttons": [{"name": b, "down": b in pressed} for b in info.buttons],
            "default_mapping": default_mapping(info).to_dict()}


def table(version: str, devices: list[dict]) -> str:
    if not devices:
        return f"SDL {version}: no game controller, wheel or joystick is plugged in"
    lines = [f"SDL {version}: {len(devices)} device{'s' if len(devices) != 1 else ''}"]
    for i, d in enumerate(devices, 1):
        mapping = d["default_mapping"]
        lines.append(f"{i}. {d['name']}  ({d['kind']}, GUID {d['guid']})")
        lines.append(f"   axes ({len(d['axes'])}): " + ", ".join(f"{a['name']} {a['raw']}" for a in d["axes"]))
        lines.append(f"   buttons ({len(d['buttons'])}): "
                     + ", ".join(b["name"] + (" (down)" if b["down"] else "") for b in d["buttons"]))
        drives = [f"{a['axis']} -> {a['control']}" for a in mapping["axes"]]
        drives += [f"{b} -> {action}" for b, action in mapping["buttons"].items()]
        lines.append("   starts mapped: " + (", ".join(drives) or "nothing"))
    return "\n".join(lines)


def run(args) -> int:
    try:
        hub = ControllerHub()
    except SdlUnavailable as exc:
        say(f"devices: {exc}")
        return EXIT_BAD_INPUT
    try:
        hub.pump()
        hub.update()
        devices = [describe(d) for d in hub.devices.values()]
    finally:
        hub.close()
    # emit: a full or closed stdout in the words of every other command's (workbench.streams)
    emit(json.dumps({"sdl": hub.version, "devices": devices}, indent=2) if args.json else table(hub.version, devices))
    return EXIT_OK
