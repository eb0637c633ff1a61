"""Finding and loading car presets (``presets/cars/*.toml``) by name or path."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .params import CarParams
from .schema import ParamError
from .toml_text import MAX_KEY_PARTS, long_key_line

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
        doc = tomllib.loads(text, parse_float=_read_float)
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise PresetError(f"{source}: not valid TOML: nested too deeply") from None
    beyond = _beyond_a_float(doc)
    if beyond is not None:  # TOML reads 1e999 as inf: said as typed, not as the inf the user never wrote
        where, typed = beyond
        shown = typed if len(typed) <= 38 else f"{typed[:35]}..."
        raise PresetError(f"{source}: {where}: {shown} is beyond a floating-point number's range")
    try:
        return CarParams.from_document(doc)
    except ParamError as exc:
        raise PresetError(f"{source}: {exc}") from None


class _Beyond(float):
    """A TOML float whose literal is beyond a float's range (``1e999``): Python reads it as inf, which the user never
    wrote; it keeps what was typed, for the refusal. (A script's numbers are read the same way:
    workbench.scripts.format.)"""

    typed = ""


def _read_float(text: str) -> float:
    value = float(text)
    if math.isinf(value) and text.lstrip("+-") != "inf":  # tomllib passes its inf and nan literals here too
        value = _Beyond(value)
        value.typed = text
    return value


def _beyond_a_float(doc: dict) -> tuple[str, str] | None:
    """The first float literal of ``doc`` beyond a float's range: (its entry, as ``[body] mass`` or
    ``[gearbox] ratios[2]``; and what was typed), or None."""
    def key_of(key: str) -> str:
        return key if key and all(c.isalnum() or c in "_-" for c in key) else '"' + key.replace('"', '\\"') + '"'

    def walk(value, where: str, dot: str):
        if isinstance(value, _Beyond):
            return where, value.typed
        if isinstance(value, dict):
            for key, item in value.items():
                found = walk(item, f"{where}{dot}{key_of(key)}", ".")
                if found:
                    return found
        elif isinstance(value, list):
            for i, item in enumerate(value):
                found = walk(item, f"{where}[{i}]", ".")
                if found:
                    return found
        return None

    for key, value in doc.items():
        found = walk(value, f"[{key_of(key)}]", " ") if isinstance(value, dict) else walk(value, key_of(key), "")
        if found:
            return found
    return None
