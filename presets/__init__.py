"""Data shipped with carbench: car presets (``cars/*.toml``) and input scripts (``scripts/*.toml``)."""
