"""Test set-up shared by every layer: Qt runs offscreen unless CARBENCH_TEST_DISPLAY=1 asks for a screen."""

import os

import pytest

if os.environ.get("CARBENCH_TEST_DISPLAY") != "1":
    os.environ["QT_QPA_PLATFORM"] = "offscreen"

# Controllers: SDL2 runs with no video or audio device (the suite only uses its joystick support),
# and the tests that need a controller attach a virtual one (SDL_JoystickAttachVirtualEx).
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def _virtual(kind: str):
    from workbench.controllers.sdl import VirtualDevice

    device = VirtualDevice(kind)
    yield device
    device.detach()


@pytest.fixture
def virtual_gamepad():
    """A standard gamepad that exists only in this process, at rest; unplugged after the test."""
    yield from _virtual("gamepad")


@pytest.fixture
def virtual_wheel():
    """A wheel (4 axes: wheel, throttle, brake, clutch; 8 buttons; a hat) at rest; unplugged after the test."""
    yield from _virtual("wheel")
