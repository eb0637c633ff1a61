"""Input scripts: the TOML format, compiling a script against a car, the recorder, the TOML writer."""
