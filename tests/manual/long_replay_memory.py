"""Manual measurement (not collected by pytest): peak memory of a long replay that streams its CSV.

    PYTHONPATH=. python tests/manual/long_replay_memory.py [SECONDS]

Replays a SECONDS-long script (default 3600) on the sedan through ``carbench replay --csv`` in
this process and prints the telemetry's own size, the CSV's size and the peak resident memory the
run added (``resource.getrusage``, over the resident size just before it).
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from physics import channel_names
from workbench import cli
from workbench.scripts.limits import format_bytes, telemetry_bytes
from workbench.scripts.program import frame_of


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def main(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "long.toml"
        script.write_text(f'[script]\nname = "long"\npreset = "sedan"\nduration = {seconds}\n'
                          f'[[hold]]\nkeys = ["throttle", "left"]\nfrom = 0.0\nto = {seconds * 0.8}\n'
                          f'[[expect]]\nchannel = "speed"\nat = {seconds}\nmin = 0.0\n', encoding="utf-8")
        csv = Path(folder) / "long.csv"
        frames = frame_of(seconds, 1 / 120) + 1
        own = telemetry_bytes(frames, len(channel_names("m")))
        before = resident_bytes()
        start = time.perf_counter()
        code = cli.main(["replay", str(script), "--csv", str(csv)])
        took = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
        print(f"exit {code}, {frames:,} frames in {took:.1f} s", file=sys.stderr)
        print(f"telemetry {format_bytes(own)}, CSV {format_bytes(csv.stat().st_size)}, "
              f"peak resident memory added by the run {format_bytes(peak - before)} "
              f"({(peak - before) / own:.2f} x the telemetry)", file=sys.stderr)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 3600.0)
