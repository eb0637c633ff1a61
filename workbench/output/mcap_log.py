"""Replays as MCAP files that Foxglove and PlotJuggler open: JSON messages described by JSON Schema.

Per script (one car of a batch) there are three topics, each named after the script:

- ``/<script>/telemetry``: one message per frame, every channel (SI units, as the model has them; the
  schema gives each field's unit and description), log time = simulation time;
- ``/<script>/parameters``: the car's parameters and the run's stamp at t = 0, and again at every
  parameter change of the script;
- ``/<script>/verdicts``: one message per expectation at the frame that decided it, one per monitor
  violation at its frame, and one per [[measure]] at the last frame of its window. A channel's values are in its
  display unit, as the tables and reports show them (degrees for angles; a crossing time in seconds; ``measured``
  null where the crossing never happens), and in SI beside them (``si``), as the telemetry has them.

The layout follows the MCAP JSON convention: ``message_encoding = "json"``, schema encoding
``"jsonschema"``.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcap.writer import CompressionType, Writer

from physics import CarParams
from physics.units import display_of
from workbench.names import printable, printable_doc, unique_names
from workbench.output.files import atomic_writer
from workbench.output.html_report import stamp
from workbench.output.report import how_shown, measure_display, scaled
from workbench.output.telemetry_log import TelemetryLog
from workbench.runs.stamp import make_stamp, session_stamp

NS = 1_000_000_000


def _number(x: float | None):
    return float(x) if x is not None and math.isfinite(x) else None  # JSON has no NaN; a monitor reports it, the log stays valid


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
        "kind": {"type": "string", "enum": ["expectation", "monitor", "measure"]},
        "label": {"type": "string"},
        "channel": {"type": "string"},
        "passed": {"type": ["boolean", "null"], "description": "null for a measure, which has no verdict"},
        "measured": {"type": ["number", "null"], "description": "in the channel's display unit (\"unit\")"},
        "min": {"type": ["number", "null"], "description": "an expectation's bound, in the display unit"},
        "max": {"type": ["number", "null"], "description": "an expectation's bound, in the display unit"},
        "unit": {"type": "string", "description": "the display unit (deg for angles, as the tables and reports)"},
        "frame": {"type": "integer"},
        "time": {"type": "number"},
        "values": {"type": "array", "items": {"type": "object"},
                   "description": "a monitor's values, each in its display unit"},
        "how": {"type": "string", "description": "a measure's reduction (\"max over 11..16 s\"), a threshold in the "
                                                 "display unit"},
        "si": {"type": "object", "description": "measured, min, max, unit (and a measure's how) in SI, as the "
                                                "telemetry topic has them"},
    },
}


def _topic(name: str) -> str:
    # Letters and digits of any script (MCAP topics are UTF-8: "Bremsweg über 100" was "/Bremsweg_ber_100", "ä" "/script")
    return re.sub(r"[^\w.-]+", "_", name).strip("_") or "script"


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
    measurements: Sequence = ()  # workbench.runs.measures.Measurement
    preset_params: CarParams | None = None  # the preset's own parameters: a change's stamp says what differs from them


def run_of_result(result, violations: Sequence = ()) -> Run:
    p = result.program
    return Run(p.name, p.script.source, p.preset, [(0, p.params), *p.param_changes], p.dt, result.log, result.car,
               p.frames, stamp(p), result.verdicts, violations, result.measurements,
               p.preset_params if p.preset_params is not None else p.params)


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
        topics = unique_names([_topic(run.name) for run in runs])
        streams = [_messages(writer, run, topic, schemas, params_schema, verdict_schema)
                   for run, topic in zip(runs, topics, strict=True)]
        for log_time, _, channel, data, seq in heapq.merge(*streams, key=lambda m: (m[0], m[1])):
            writer.add_message(channel, log_time, data, log_time, seq)  # every message in log-time order
        writer.finish()
    return Path(path)


TELEMETRY_BLOCK = 4096
"""Frames of telemetry :func:`_messages` turns into messages at a time."""


def _messages(writer, run: Run, topic: str, schemas: dict[str, int], params_schema: int, verdict_schema: int):
    """Register the run's three channels; its messages as (log time, order, channel, data, sequence), in time order."""
    infos = run.log.infos
    unit = run.params[0][1].model.unit
    if unit not in schemas:
        schemas[unit] = writer.register_schema(f"carbench.Telemetry.{unit}", "jsonschema",
                                               json.dumps(telemetry_schema(infos)).encode())
    meta = {"script": printable(run.source), "preset": printable(run.preset)}  # from file names: UTF-8 or escaped
    tele = writer.register_channel(f"/{topic}/telemetry", "json", schemas[unit], meta)
    params = writer.register_channel(f"/{topic}/parameters", "json", params_schema, meta)
    verdicts = writer.register_channel(f"/{topic}/verdicts", "json", verdict_schema, meta)

    def ns(k: int) -> int:
        return int(round(k * run.dt * NS))

    def parameter_messages():
        for seq, (k, car) in enumerate(sorted(run.params, key=lambda item: item[0])):
            # Each message's stamp is of its own parameters (a change's carried the run's, of frame 0: the preset's
            # hash and no change listed for a car 400 kg heavier).
            own = run.stamp if k == 0 or run.preset_params is None else make_stamp(
                run.stamp["preset"], run.preset_params, car, run.dt).to_table()
            doc = {"script": run.name, "from_time": k * run.dt, "stamp": own, "parameters": car.to_document()}
            yield ns(k), 0, params, json.dumps(printable_doc(doc)).encode(), seq  # the stamp names files

    def telemetry_messages():
        names = [c.name for c in infos]
        matrix = run.log.matrix(run.car, run.frames)
        # A block of frames at a time as Python floats (24 bytes a value, not 8): the whole run's at once took 3.7 GB
        # for a 588 MB run, and a run within --max-memory died of a MemoryError.
        for start in range(0, len(matrix), TELEMETRY_BLOCK):
            for k, row in enumerate(matrix[start:start + TELEMETRY_BLOCK].tolist(), start):
                yield ns(k), 1, tele, json.dumps(dict(zip(names, map(_number, row), strict=True))).encode(), k

    def verdict_messages():
        # Values of a channel in its display unit, as every table, report and plot shows them (degrees for angles),
        # with the SI figures of the telemetry topic beside them ("si").
        by_name = {c.name: c for c in infos}
        si_unit = {c.name: c.unit for c in infos}
        docs = []
        for v in run.verdicts:
            unit, factor = display_of(by_name[v.expect.channel]) if v.expect.channel in by_name else (v.unit, 1.0)
            docs.append((v.frame, {"kind": "expectation", "label": v.expect.label(), "channel": v.expect.channel,
                                   "passed": v.passed, "measured": _number(v.measured * factor),
                                   "min": scaled(v.expect.min, factor), "max": scaled(v.expect.max, factor),
                                   "unit": unit, "frame": v.frame, "time": v.time, "values": [],
                                   "si": {"measured": _number(v.measured), "min": v.expect.min, "max": v.expect.max,
                                          "unit": v.unit}}))
        for v in run.violations:
            docs.append((v.frame, {"kind": "monitor", "label": v.monitor, "channel": "", "passed": False,
                                   "measured": None, "min": None, "max": None, "unit": "", "frame": v.frame,
                                   "time": v.time, "values": [{"name": what, "value": _number(value), "unit": u}
                                                              for what, value, u in v.values]}))
        for m in run.measurements:
            unit, factor, _, _ = measure_display(m, by_name)
            docs.append((m.last, {"kind": "measure", "label": m.measure.name, "channel": m.measure.channel,
                                  "passed": None, "measured": _number(scaled(m.value, factor)),
                                  "min": None, "max": None, "unit": unit, "frame": m.last, "time": m.last * run.dt,
                                  "values": [], "how": how_shown(m.measure, by_name),
                                  "si": {"measured": _number(m.value), "unit": m.unit,
                                         "how": m.measure.how(1.0, si_unit.get(m.measure.channel, ""))}}))
        for seq, (frame, doc) in enumerate(sorted(docs, key=lambda item: item[0])):
            yield ns(frame), 2, verdicts, json.dumps(doc).encode(), seq

    return heapq.merge(parameter_messages(), telemetry_messages(), verdict_messages(), key=lambda m: (m[0], m[1]))


def write_session_mcap(session, path: str | Path) -> Path:
    """The live session's history (a :class:`workbench.runs.live.LiveSession`) as MCAP: what the window exports.

    The parameters are those the history stepped with: at frame 0 and at every change after it (as the command
    line writes a script's); a replayed script's verdicts come along.
    """
    from workbench.runs.live import preset_reference

    frames = session.log.frames
    verdicts = [v for v in session.verdicts() if v is not None] if session.replayed else []
    name = session.program.name if session.replayed and session.program is not None else "session"
    run_stamp = session_stamp(session).to_table()
    history = session.history
    params = [(0, history.start_params)] + [(k, p) for k, p in history.changes if k < frames]
    run = Run(name, "carbench window", preset_reference(session.preset), params, session.dt,
              session.log, 0, frames, run_stamp, verdicts, preset_params=session.preset.params)
    return write_runs([run], path)
