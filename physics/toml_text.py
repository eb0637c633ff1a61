"""A check of TOML text before it is parsed: Python's tomllib takes time growing with the square of a dotted key's
length (a 400 KB key of 200,000 parts did not finish in a minute), which a file's size limit does not bound."""

from __future__ import annotations

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
