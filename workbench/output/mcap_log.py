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
from pathlib import Path

from mcap.writer import CompressionType, Writer

from workbench.output.files import atomic_writer
from workbench.output.html_report import stamp

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


def write_mcap(results: Sequence, path: str | Path, violations: Sequence = ()) -> Path:
    """Write every replayed script's telemetry, parameters and verdicts to ``path`` (atomically).

    ``violations`` are :class:`workbench.runs.monitors.ScriptViolation` values (index into ``results``).
    """
    with atomic_writer(path, binary=True) as stream:
        writer = Writer(stream, compression=CompressionType.ZSTD)
        writer.start(profile="", library="carbench")
        params_schema = writer.register_schema("carbench.Parameters", "jsonschema",
                                               json.dumps(PARAMETERS_SCHEMA).encode())
        verdict_schema = writer.register_schema("carbench.Verdict", "jsonschema", json.dumps(VERDICT_SCHEMA).encode())
        schemas: dict[str, int] = {}
        used: set[str] = set()
        for i, r in enumerate(results):
            p = r.program
            infos = r.log.infos
            unit = p.params.model.unit
            if unit not in schemas:
                schemas[unit] = writer.register_schema(f"carbench.Telemetry.{unit}", "jsonschema",
                                                       json.dumps(telemetry_schema(infos)).encode())
            topic = _topic(p.name, used)
            meta = {"script": p.script.source, "preset": p.preset}
            tele = writer.register_channel(f"/{topic}/telemetry", "json", schemas[unit], meta)
            params = writer.register_channel(f"/{topic}/parameters", "json", params_schema, meta)
            verdicts = writer.register_channel(f"/{topic}/verdicts", "json", verdict_schema, meta)

            run_stamp = stamp(p)
            for seq, (k, car) in enumerate([(0, p.params), *p.param_changes]):
                t = int(round(k * p.dt * NS))
                doc = {"script": p.name, "from_time": k * p.dt, "stamp": run_stamp, "parameters": car.to_document()}
                writer.add_message(params, t, json.dumps(doc).encode(), t, seq)
            names = [c.name for c in infos]
            matrix = r.log.matrix(r.car, p.frames)
            for k, row in enumerate(matrix.tolist()):
                t = int(round(k * p.dt * NS))
                data = json.dumps(dict(zip(names, map(_number, row), strict=True))).encode()
                writer.add_message(tele, t, data, t, k)
            seq = 0
            for v in r.verdicts:
                t = int(round(v.frame * p.dt * NS))
                doc = {"kind": "expectation", "label": v.expect.label(), "channel": v.expect.channel,
                       "passed": v.passed, "measured": _number(v.measured), "min": v.expect.min, "max": v.expect.max,
                       "unit": v.unit, "frame": v.frame, "time": v.time, "values": []}
                writer.add_message(verdicts, t, json.dumps(doc).encode(), t, seq)
                seq += 1
            for s in violations:
                if s.index != i:
                    continue
                v = s.violation
                t = int(round(v.frame * p.dt * NS))
                doc = {"kind": "monitor", "label": v.monitor, "channel": "", "passed": False, "measured": None,
                       "min": None, "max": None, "unit": "", "frame": v.frame, "time": v.time,
                       "values": [{"name": what, "value": _number(value), "unit": u} for what, value, u in v.values]}
                writer.add_message(verdicts, t, json.dumps(doc).encode(), t, seq)
                seq += 1
        writer.finish()
    return Path(path)
