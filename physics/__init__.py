"""carbench's car model: parameters, state, one fixed-timestep step and telemetry channels.

numpy, numba and the standard library; nothing here imports Qt. The model is written once, as
scalar functions per subsystem, and compiled by numba into one kernel (physics.kernel); run with
NUMBA_DISABLE_JIT=1 it is plain Python. The usual entry points:

    from physics import Inputs, Simulation, load_preset
    sim = Simulation(load_preset("sedan").params, n=1, dt=1 / 120)
    sim.step(Inputs.from_keys(1, {"throttle"}))
    sim.channel("speed_kmh")
"""

from . import jit as _jit  # noqa: F401  (numba set up before anything compiles)
from .car import Car, prepare
from .inputs import ANALOG, KEYS, Inputs
from .jit import max_threads, set_threads, threads
from .kernel import Kernel, NonFiniteError, build_kernel, default_kernel
from .params import CarParams
from .presets import Preset, PresetError, load_preset, parse_preset, preset_names, resolve_preset
from .schema import ParamError, ParamInfo
from .simulation import DEFAULT_DT, Simulation, check_dt
from .state import State, initial_state
from .telemetry import (
    ChannelInfo,
    Telemetry,
    TelemetryFrame,
    UnknownChannelError,
    channel_infos,
    channel_names,
    check_channel,
)

__all__ = [
    "ANALOG", "Car", "CarParams", "ChannelInfo", "DEFAULT_DT", "Inputs", "KEYS", "ParamError", "ParamInfo",
    "Preset", "PresetError", "Simulation", "State", "Telemetry", "TelemetryFrame", "UnknownChannelError", "channel_infos",
    "channel_names", "check_channel", "check_dt", "initial_state", "load_preset", "parse_preset", "prepare",
    "preset_names", "resolve_preset", "Kernel", "NonFiniteError", "build_kernel", "default_kernel",
    "max_threads", "set_threads", "threads",
]
