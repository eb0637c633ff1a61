"""A small TOML writer for carbench's two file kinds, laid out as people write them.

Presets are tables of scalars and short lists; scripts are ``[script]`` then arrays of tables whose
values are scalars, short lists and one-level inline tables. Writing these by hand keeps the
layout of a recording the same as a hand-written script (``[script]`` first, one-line lists),
which a general-purpose writer does not offer. Every file written is read back by ``tomllib`` in
the tests.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name)


def value(v: Any) -> str:
    """One TOML value: string, bool, int, finite float, flat list or one-level inline table."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v!r} cannot be written to TOML")
        return repr(v)
    if isinstance(v, str):
        # JSON's escapes are valid in a TOML basic string; DEL must be escaped too, and characters
        # beyond the BMP are written as themselves (JSON's surrogate pairs are not TOML).
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(item) for item in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{key(k)} = {value(item)}" for k, item in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


LINE = 100  # characters: a longer list (a recorded [[track]]'s values) is wrapped, several items a line


def _entry(name: str, v: Any) -> str:
    line = f"{key(name)} = {value(v)}"
    if len(line) <= LINE or not isinstance(v, (list, tuple)):
        return line
    rows, row = [], ""
    for item in (value(i) for i in v):
        if row and len(row) + len(item) + 2 > LINE - 4:
            rows.append(row)
            row = ""
        row += f"{item}, "
    rows.append(row)
    return "\n".join([f"{key(name)} = [", *(f"    {r.rstrip()}" for r in rows), "]"])


def _body(table: dict[str, Any]) -> list[str]:
    return [_entry(k, v) for k, v in table.items()]


def dumps(doc: dict[str, Any], header: str = "") -> str:
    """A document of tables (``[name]``) and arrays of tables (``[[name]]``), in the order given."""
    chunks = []
    if header:
        chunks.append("".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines()))
    for name, content in doc.items():
        if isinstance(content, dict):
            chunks.append("\n".join([f"[{key(name)}]", *_body(content)]) + "\n")
        elif isinstance(content, list) and all(isinstance(t, dict) for t in content):
            for table in content:
                chunks.append("\n".join([f"[[{key(name)}]]", *_body(table)]) + "\n")
        else:
            raise TypeError(f"top-level {name!r} must be a table or an array of tables")
    return "\n".join(chunks)
