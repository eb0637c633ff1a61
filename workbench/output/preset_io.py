"""Writing car presets: the parameter dataclasses' document, as TOML, atomically."""

from __future__ import annotations

from pathlib import Path

from physics import CarParams, parse_preset
from workbench.output.files import atomic_write_text
from workbench.scripts import toml_writer


def preset_text(params: CarParams, header: str = "") -> str:
    """The preset file for ``params``; parsing it gives ``params`` back."""
    text = toml_writer.dumps(params.to_document(), header)
    parse_preset(text, "<written preset>")  # never write what could not be read back
    return text


def save_preset(params: CarParams, path: str | Path, header: str = "") -> Path:
    """Write ``params`` as a preset file at ``path`` (temp file + rename)."""
    return atomic_write_text(path, preset_text(params, header))
