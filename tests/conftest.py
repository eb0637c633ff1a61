"""Test set-up shared by every layer: Qt runs offscreen unless CARBENCH_TEST_DISPLAY=1 asks for a screen."""

import os

if os.environ.get("CARBENCH_TEST_DISPLAY") != "1":
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
