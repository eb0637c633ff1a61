"""Game controllers, wheels and the mouse as driving inputs, headless: axis mappings (dead zone, curve,
inversion, calibration), SDL2 devices (loaded only when asked for), the rule that the last input to
move drives a control, and ``carbench devices``. The window's poller lives in ``workbench.gui``."""
