"""carbench's car model: parameters, state, one fixed-timestep step and telemetry channels.

Pure numpy and the standard library; nothing here imports Qt. The usual entry points:

    from physics import Inputs, Simulation, load_preset
    sim = Simulation(load_preset("sedan").params, n=1, dt=1 / 120)
    sim.step(Inputs.from_keys(1, {"throttle"}))
    sim.channel("speed_kmh")
"""

from .car import Car, prepare
from .inputs import ANALOG, KEYS, Inputs
from .params import CarParams
from .presets import Preset, PresetError, load_preset, parse_preset, preset_names, resolve_preset
from .schema import ParamError, ParamInfo
from .simulation import DEFAULT_DT, Simulation, check_dt
from .state import State, initial_state
from .step import step
from .telemetry import ChannelInfo, Telemetry, UnknownChannelError, channel_infos, channel_names, check_channel

__all__ = [
    "ANALOG", "Car", "CarParams", "ChannelInfo", "DEFAULT_DT", "Inputs", "KEYS", "ParamError", "ParamInfo",
    "Preset", "PresetError", "Simulation", "State", "Telemetry", "UnknownChannelError", "channel_infos",
    "channel_names", "check_channel", "check_dt", "initial_state", "load_preset", "parse_preset", "prepare",
    "preset_names", "resolve_preset", "step",
]
