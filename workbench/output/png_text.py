"""The text chunks of a PNG file (``tEXt``: a keyword and a Latin-1 value), read without Qt.

carbench writes ``Software`` and, for a sweep's charts, ``Source`` into every chart it draws
(workbench.gui.charts.render_png). A later sweep into the same folder reads them to tell its own earlier charts
from anyone else's images (:func:`charts_of_a_sweep`). Only the chunks before the image data are read, and at
most :data:`MAX_TEXT_BYTES` of them.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

from workbench.output.charts import SWEEP_SOURCE

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_TEXT_BYTES = 64 * 1024  # carbench's own chunks are a few dozen bytes; a larger one is not carbench's


def png_texts(path: str | os.PathLike) -> dict[str, str]:
    """The ``tEXt`` chunks before the image data, keyword to value; empty for anything that is not a PNG (or
    cannot be read)."""
    texts: dict[str, str] = {}
    try:
        with open(path, "rb") as handle:
            if handle.read(8) != SIGNATURE:
                return {}
            read = 0
            while True:
                head = handle.read(8)
                if len(head) < 8:
                    return texts
                length, kind = struct.unpack(">I4s", head)
                if kind in (b"IDAT", b"IEND"):
                    return texts
                read += length
                if read > MAX_TEXT_BYTES:
                    return texts
                if kind == b"tEXt":
                    data = handle.read(length)
                    keyword, sep, value = data.partition(b"\0")
                    if sep and len(data) == length:
                        texts[keyword.decode("latin-1")] = value.decode("latin-1")
                    handle.seek(4, os.SEEK_CUR)  # the CRC
                else:
                    handle.seek(length + 4, os.SEEK_CUR)
    except OSError:
        return {}


MANIFEST = ".carbench-sweep-charts"
"""The file a sweep writes beside its CSV naming the charts it drew, one per line: what the next sweep into the
folder may remove."""
MAX_MANIFEST_BYTES = 64 * 1024


def manifest_text(names: list[str]) -> str:
    return "".join(f"{name}\n" for name in names)


def charts_of_a_sweep(folder: str | os.PathLike) -> set[str]:
    """The charts an earlier ``carbench sweep --plot`` wrote into ``folder`` and that are still as it left them:
    named in its list (:data:`MANIFEST`), regular files with no other name (not a link, not hard-linked elsewhere)
    whose PNG Source text says a sweep drew them. A user's copy of a chart, under any name, and any other image are
    not among them."""
    names: set[str] = set()
    try:
        with open(Path(folder) / MANIFEST, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return names
            listed = handle.read(MAX_MANIFEST_BYTES).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return names
    for name in listed:
        if name.endswith(".png") and not name.startswith(".") and os.path.basename(name) == name \
                and still_a_sweeps_chart(Path(folder) / name):
            names.add(name)
    return names


def still_a_sweeps_chart(path: Path) -> bool:
    """Whether ``path`` is a regular file with no other name (not a link, not hard-linked elsewhere) whose PNG Source
    text says a sweep drew it: asked when the sweep starts, and again just before its removal."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and png_texts(path).get("Source") == SWEEP_SOURCE
