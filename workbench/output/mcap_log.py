"""Replays as MCAP files that Foxglove and PlotJuggler open: JSON messages described by JSON Schema.

Per script (one car of a batch) there are three topics, each named after the script:

- ``/<script>/telemetry``: one message per frame, every channel (SI units, as the model has them; the
  schema gives each field's unit and description), log time = simulation time;
- ``/<script>/parameters``: the car's parameters and the run's stamp at t = 0, and again at every
  parameter change of the script;
- ``/<script>/verdicts``: one message per expectation at the frame that decided it, and one per monitor
  violation at its frame.

The layout follows the MCAP JSON convention: ``message_encoding = "json"``, schema encoding
``"jsonschema"``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from mcap.writer import CompressionType, Writer

from physics import CarParams
from workbench.output.files import atomic_writer
from workbench.output.html_report import _version, params_digest, stamp
from workbench.output.telemetry_log import TelemetryLog

NS = 1_000_000_000


def _number(x: float):
    return float(x) if math.isfinite(x) else None  # JSON has no NaN; a monitor reports it, the log stays valid


def telemetry_schema(infos) -> dict:
    return {
        "title": "carbench telemetry frame",
        "type": "object",
        "properties": {c.name: {"type": "number", "description": f"{c.doc} [{c.unit or '-'}]"} for c in infos},
        "required": [c.name for c in infos],
    }


PARAMETERS_SCHEMA = {
    "title": "carbench parameters and stamp",
    "type": "object",
    "properties": {
        "script": {"type": "string"},
        "from_time": {"type": "number", "description": "simulation time these parameters apply from [s]"},
        "stamp": {"type": "object", "description": "versions, preset, parameter digest and dt of the run"},
        "parameters": {"type": "object", "description": "the preset's groups and values (SI)"},
    },
}

VERDICT_SCHEMA = {
    "title": "carbench verdict",
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["expectation", "monitor"]},
        "label": {"type": "string"},
        "channel": {"type": "string"},
        "passed": {"type": "boolean"},
        "measured": {"type": ["number", "null"]},
        "min": {"type": ["number", "null"]},
        "max": {"type": ["number", "null"]},
        "unit": {"type": "string"},
        "frame": {"type": "integer"},
        "time": {"type": "number"},
        "values": {"type": "array", "items": {"type": "object"}},
    },
}


def _topic(name: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "script"
    topic, n = base, 2
    while topic in used:
        topic, n = f"{base}-{n}", n + 1
    used.add(topic)
    return topic


@dataclass(frozen=True)
class Run:
    """One car's run as the log holds it: what :func:`write_runs` needs of a replay or a live session."""

    name: str
    source: str
    preset: str
    params: Sequence[tuple[int, CarParams]]  # parameter sets and the frame each starts on
    dt: float
    log: TelemetryLog
    car: int
    frames: int
    stamp: dict
    verdicts: Sequence = ()  # workbench.runs.replay.Verdict
    violations: Sequence = ()  # workbench.runs.monitors.Violation


def run_of_result(result, violations: Sequence = ()) -> Run:
    p = result.program
    return Run(p.name, p.script.source, p.preset, [(0, p.params), *p.param_changes], p.dt, result.log, result.car,
               p.frames, stamp(p), result.verdicts, violations)


def write_mcap(results: Sequence, path: str | Path, violations: Sequence = ()) -> Path:
    """Write every replayed script's telemetry, parameters and verdicts to ``path`` (atomically).

    ``violations`` are :class:`workbench.runs.monitors.ScriptViolation` values (index into ``results``).
    """
    runs = [run_of_result(r, [s.violation for s in violations if s.index == i]) for i, r in enumerate(results)]
    return write_runs(runs, path)


def write_runs(runs: Sequence[Run], path: str | Path) -> Path:
    """Write runs to ``path`` as MCAP (atomically): three topics per run, named after it."""
    with atomic_writer(path, binary=True) as stream:
        writer = Writer(stream, compression=CompressionType.ZSTD)
        writer.start(profile="", library="carbench")
        params_schema = writer.register_schema("carbench.Parameters", "jsonschema",
                                               json.dumps(PARAMETERS_SCHEMA).encode())
        verdict_schema = writer.register_schema("carbench.Verdict", "jsonschema", json.dumps(VERDICT_SCHEMA).encode())
        schemas: dict[str, int] = {}
        used: set[str] = set()
        for run in runs:
            _write_run(writer, run, _topic(run.name, used), schemas, params_schema, verdict_schema)
        writer.finish()
    return Path(path)


def _write_run(writer, run: Run, topic: str, schemas: dict[str, int], params_schema: int, verdict_schema: int):
    infos = run.log.infos
    unit = run.params[0][1].model.unit
    if unit not in schemas:
        schemas[unit] = writer.register_schema(f"carbench.Telemetry.{unit}", "jsonschema",
                                               json.dumps(telemetry_schema(infos)).encode())
    meta = {"script": run.source, "preset": run.preset}
    tele = writer.register_channel(f"/{topic}/telemetry", "json", schemas[unit], meta)
    params = writer.register_channel(f"/{topic}/parameters", "json", params_schema, meta)
    verdicts = writer.register_channel(f"/{topic}/verdicts", "json", verdict_schema, meta)

    def ns(k: int) -> int:
        return int(round(k * run.dt * NS))

    for seq, (k, car) in enumerate(run.params):
        doc = {"script": run.name, "from_time": k * run.dt, "stamp": run.stamp, "parameters": car.to_document()}
        writer.add_message(params, ns(k), json.dumps(doc).encode(), ns(k), seq)
    names = [c.name for c in infos]
    for k, row in enumerate(run.log.matrix(run.car, run.frames).tolist()):
        writer.add_message(tele, ns(k), json.dumps(dict(zip(names, map(_number, row), strict=True))).encode(),
                           ns(k), k)
    seq = 0
    for v in run.verdicts:
        doc = {"kind": "expectation", "label": v.expect.label(), "channel": v.expect.channel, "passed": v.passed,
               "measured": _number(v.measured), "min": v.expect.min, "max": v.expect.max, "unit": v.unit,
               "frame": v.frame, "time": v.time, "values": []}
        writer.add_message(verdicts, ns(v.frame), json.dumps(doc).encode(), ns(v.frame), seq)
        seq += 1
    for v in run.violations:
        doc = {"kind": "monitor", "label": v.monitor, "channel": "", "passed": False, "measured": None, "min": None,
               "max": None, "unit": "", "frame": v.frame, "time": v.time,
               "values": [{"name": what, "value": _number(value), "unit": u} for what, value, u in v.values]}
        writer.add_message(verdicts, ns(v.frame), json.dumps(doc).encode(), ns(v.frame), seq)
        seq += 1


def write_session_mcap(session, path: str | Path) -> Path:
    """The live session's history (a :class:`workbench.runs.live.LiveSession`) as MCAP: what the window exports.

    The parameters written are those in effect now; a replayed script's verdicts come along.
    """
    from workbench.runs.live import preset_reference

    frames = session.log.frames
    verdicts = [v for v in session.verdicts() if v is not None] if session.replayed else []
    name = session.program.name if session.replayed and session.program is not None else "session"
    run_stamp = {"carbench": _version("carbench"), "numpy": np.__version__, "preset": session.preset.name,
                 "params_sha256": params_digest(session.params), "dt": session.dt}
    run = Run(name, "carbench window", preset_reference(session.preset), [(0, session.params)], session.dt,
              session.log, 0, frames, run_stamp, verdicts)
    return write_runs([run], path)
