"""carbench's TOML files (presets and scripts), read the same way: a check of the text before it is parsed (Python's
tomllib takes time growing with the square of a dotted key's length: a 400 KB key of 200,000 parts did not finish in a
minute, which a file's size limit does not bound), and numbers beyond a float's range kept as typed."""

from __future__ import annotations

import math
import re

MAX_KEY_PARTS = 64
"""The most parts a dotted key may have (``[a.b.c]``, ``a.b.c = 1``): the model's deepest has three."""

# Strings (where dots are not key separators) and comments, each matched whole, left to right; then a run of more
# than MAX_KEY_PARTS key parts joined by dots (a string's place is left empty: "a"."b" is a key of two parts).
_SKIPPED = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*', re.DOTALL)
# Possessive (no backtracking into a part): every space and character belongs to one part alone, so a near miss of
# many dots costs a pass, not the powers of two that a pattern with two ways to take a space tried. And a match only
# starts where a run of key characters, spaces and dots starts: tried at every position inside a long run, each try ate
# the rest of the run (160,000 letters took 23 s).
_LONG_KEY = re.compile(rf"(?<![A-Za-z0-9_ \t.-])(?:[ \t]*+(?:[A-Za-z0-9_-]++[ \t]*+)?\.){{{MAX_KEY_PARTS},}}")
# (as many dots as MAX_KEY_PARTS: a key of one part more)


def long_key_line(text: str) -> int | None:
    """The line (from 1) of the first dotted key of more than MAX_KEY_PARTS parts in TOML ``text``, or None."""
    bare = _SKIPPED.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # the line numbers kept
    found = _LONG_KEY.search(bare)
    return None if found is None else bare.count("\n", 0, found.start()) + 1


class Beyond(float):
    """A TOML float whose literal is beyond a float's range: Python reads ``1e999`` as inf and ``1e-999`` as 0, values
    the user never wrote; it keeps what was typed, for the refusal. (Presets and scripts are read so: physics.presets,
    workbench.scripts.format.)"""

    typed = ""


def underflows(text: str, value: float) -> bool:
    """Whether the number literal ``text``, read as ``value``, has a digit other than 0 before its exponent and reads
    as zero: below the smallest float (``1e-999``, ``-2.5e-400``), which a number typed as such never means."""
    mantissa = re.split("[eE]", text.strip().lstrip("+-"), maxsplit=1)[0]
    return value == 0.0 and any(c in "123456789" for c in mantissa)


def read_float(text: str) -> float:
    """tomllib's ``parse_float`` for carbench's files: a literal beyond a float's range, either way, is kept as typed
    (:class:`Beyond`)."""
    value = float(text)
    # tomllib passes its inf and nan literals here too
    if (math.isinf(value) and text.lstrip("+-") != "inf") or underflows(text, value):
        value = Beyond(value)
        value.typed = text
    return value


def beyond_a_float(doc: dict) -> tuple[str, str] | None:
    """The first float literal of ``doc`` (read with :func:`read_float`) beyond a float's range: (its entry, as
    ``[body] mass``, ``[gearbox] ratios[2]``, a script's ``[[set]] #1 params."body.mass"`` or ``[script] duration``;
    and what was typed), or None."""
    def key_of(key: str) -> str:
        return key if key and all(c.isalnum() or c in "_-" for c in key) else '"' + key.replace('"', '\\"') + '"'

    def walk(value, where: str, dot: str):
        if isinstance(value, Beyond):
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
        if isinstance(value, dict):
            found = walk(value, f"[{key_of(key)}]", " ")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            found = next(filter(None, (walk(v, f"[[{key_of(key)}]] #{i}", " ") for i, v in enumerate(value, 1))), None)
        else:
            found = walk(value, key_of(key), "")
        if found:
            return found
    return None


def shown_literal(typed: str) -> str:
    """A literal :func:`beyond_a_float` found, as a refusal quotes it: cut to 38 characters."""
    return typed if len(typed) <= 38 else f"{typed[:35]}..."
