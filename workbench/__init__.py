"""carbench's workbench: input scripts, recorder, replay and the command line (headless), and the Qt window."""
