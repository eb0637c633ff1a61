"""Finding and loading car presets (``presets/cars/*.toml``) by name or path."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .params import CarParams
from .schema import ParamError
from .toml_text import MAX_KEY_PARTS, beyond_a_float, long_key_line, read_float, shown_literal

MAX_PRESET_BYTES = 1024 * 1024  # a preset is a few kB of TOML; anything far larger is not one


class PresetError(ValueError):
    """A preset that cannot be loaded; the message names the file, the key and the reason."""


@dataclass(frozen=True)
class Preset:
    """A loaded preset: its name, where it came from, and its validated parameters."""

    name: str
    path: Path | None
    params: CarParams


def presets_root() -> Path:
    """The folder that holds the shipped ``cars/`` and ``scripts/``."""
    return Path(str(resources.files("presets")))


def cars_dir() -> Path:
    return presets_root() / "cars"


def scripts_dir() -> Path:
    return presets_root() / "scripts"


def preset_names() -> list[str]:
    """Names of the shipped car presets."""
    return sorted(p.stem for p in cars_dir().glob("*.toml"))


def resolve_preset(name_or_path: str | Path) -> Path:
    """The file a preset name or path refers to; PresetError when there is none."""
    text = str(name_or_path)
    candidate = Path(text)
    if not text.strip():
        raise PresetError(f"{text!r}: empty preset name; the presets are: {', '.join(preset_names())}")
    if candidate.is_dir():
        shipped = cars_dir() / f"{text}.toml"
        if candidate.suffix != ".toml" and "/" not in text and os.sep not in text and shipped.is_file():
            return shipped  # a folder named "sedan" in the working folder does not hide the shipped preset
        raise PresetError(f"{text}: is a directory, not a preset file")
    if candidate.suffix == ".toml" or candidate.parent != Path("."):
        if candidate.is_file():
            return candidate
        if candidate.exists():
            raise PresetError(f"{text}: is not a regular file (a device, FIFO or socket), not a preset file")
        raise PresetError(f"{text}: no such preset file")
    shipped = cars_dir() / f"{text}.toml"
    if shipped.is_file():
        return shipped
    raise PresetError(f"{text}: no such preset; the presets are: {', '.join(preset_names())}")


def load_preset(name_or_path: str | Path) -> Preset:
    """Load and validate a preset by shipped name (``"sedan"``) or by path."""
    path = resolve_preset(name_or_path)
    try:
        size = path.stat().st_size
        if size > MAX_PRESET_BYTES:
            raise PresetError(f"{path}: {size} bytes is larger than a preset file may be ({MAX_PRESET_BYTES} bytes)")
        data = path.read_bytes()
    except OSError as exc:
        raise PresetError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return Preset(name=path.stem, path=path, params=parse_preset(data, str(path)))


def parse_preset(data: bytes | str, source: str) -> CarParams:
    """Parse preset TOML text; errors name ``source``, the key and the reason."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data.removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise PresetError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    line = long_key_line(text)
    if line is not None:  # before tomllib, whose time grows with the square of a key's length
        raise PresetError(f"{source}: line {line}: a dotted key of more than {MAX_KEY_PARTS} parts")
    try:
        doc = tomllib.loads(text, parse_float=read_float)
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise PresetError(f"{source}: not valid TOML: nested too deeply") from None
    beyond = beyond_a_float(doc)
    if beyond is not None:  # TOML reads 1e999 as inf: said as typed, not as the inf the user never wrote
        where, typed = beyond
        raise PresetError(f"{source}: {where}: {shown_literal(typed)} is beyond a floating-point number's range")
    try:
        return CarParams.from_document(doc)
    except ParamError as exc:
        raise PresetError(f"{source}: {exc}") from None
