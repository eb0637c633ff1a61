"""The compiled kernel: N cars advanced over a block of frames, telemetry into a preallocated array.

Two Python functions, one per kind of car, are each compiled once, when a batch first needs it, without the GIL:
:func:`_block_two` advances a range of a batch's single-track cars, :func:`_block_whole` a range of its four-wheel and
kinematic cars (:data:`KINDS`; a batch of both kinds runs each run of neighbours of one kind through its own). A
batch's ranges run on several threads at once (physics.pool; one car, as in the window, runs in the calling thread).
They store the channels asked for and no others: every channel for a replay or the window, a sweep's few for its
expectations and measures (``channels`` of :meth:`Kernel.run`).

SIMD lanes across cars: within a range, up to ``GROUP`` neighbouring single-track cars run side by side, frame
by frame. Each car's frame runs up to its tyres (physics.step.first_part), the magic-formula curves of all of
them are computed in one call (physics.tyre.magic_lanes, 16 to 32 lanes), then the rest of each car's frame
(physics.step.last_part). Four-wheel and kinematic cars run whole frames, car by car (physics.step.whole_frame).
Each car runs its frames in order with its own parameter record: no reduction across cars, no fastmath, the
same code for every car, so a car's telemetry is bit-identical whatever the batch around it, its place in a
group, the chunking or the number of threads.

The closed-loop driver (physics.driver) is the kernel's one hook: for a car with a driver record
that is on, the driver writes the frame's inputs (its analog overrides) before the car's frame, and
its memory and channels, fields no car's frame writes, into the next state and the frame's telemetry.
The paths it follows are rows of one ``track`` array.

A guard checks every channel written and every state field once per frame: the first non-finite
value stops that car, nothing non-finite is written, and the caller raises :class:`NonFiniteError`.

Variants: ``build_kernel(variants={"standstill.stop_mask": my_rule})`` compiles physics.step again
with subsystem functions replaced (plain Python functions are compiled for it), to try another
rule, or to put one of 003's bugs back in a test. Only calls made from physics.step and
physics.four_wheel see the replacement.

Caching: the default kernel's blocks are cached on disk (physics.jit says where) under a key that covers
every source file of the model, so an edit to any subsystem recompiles it. Each block's first compile
prints one line to stderr.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import math
import sys
import threading
import time
import types
from collections.abc import Callable, Mapping

import numba
import numpy as np

from . import driver, pool, records
from . import four_wheel as _four_wheel
from . import step as _step
from . import tyre as _tyre
from .jit import DISABLED, scalar, source_key, threads
from .path import COLUMNS as PATH_COLUMNS
from .records import CHANNELS, STATE_FLOATS, copy_state, nonfinite_state
from .surface import COLUMNS as SURFACE_COLUMNS
from .tyre import LANE_ROWS, LANES, narrow

detail_channels = _step.detail_channels
first_part, last_part, whole_frame, two_part_lanes = (_step.first_part, _step.last_part, _step.whole_frame,
                                                     _step.two_part_lanes)
magic_lanes = _tyre.magic_lanes
KEPT = _step.KEPT
GROUP = 8
"""Single-track cars a batch runs side by side (:func:`_block_two`): their tyres' curves fill 32 lanes (16 for 002/003
cars), four or two AVX-512 registers, computed in one call instead of eight short ones that each wait on the
arithmetic's latency."""
LANE_SPACE = LANE_ROWS * (4 + LANES - 1)
"""Floats of scratch space a car has for its tyres' curves (a row of Workspace.lanes): a four-wheel car's
LANE_ROWS x LANES, or a single-track car's share of its group's (see :func:`_block_two`): up to 4 lanes of its own and
its group's rounding to whole registers (at most LANES - 1 lanes)."""
COMPILE_SECONDS = {"two": 10, "whole": 15}
"""About how long a first run's compile of each block takes on a 2-core machine, in a fresh process: at carbench 0.3.20
the single-track block 9.8 and 13.2 s of wall time on the 2-core AMD EPYC here, the four-wheel one 15.1 and 19.3 s,
two runs a few minutes apart (the lower of each said; the machine's load moves them by a third). At 0.3.14, 6.9-7.0
and 9.2 s; the four-wheel block has grown with its aids since, solved within the frame (the one block that held
both, 17.0 s at 0.3.3 and 12.0 s at 0.3.14)."""
SLOW_COMPILE_SECONDS = 45  # and on a slow one: 37-44 s of CPU for both blocks in one on a 2-core AMD EPYC (Zen 3) whose
# frames were 2.5-3x slower
KIND_NAMES = {"two": "single-track cars", "whole": "four-wheel cars and the kinematic bicycle"}


class NonFiniteError(ArithmeticError):
    """A telemetry channel or state field of a car would have become non-finite (nan or inf)."""

    def __init__(self, channel: str, car: int, frame: int, state: bool = False):
        self.channel, self.car, self.frame, self.state = channel, car, frame, state
        what = "state field" if state else "channel"
        super().__init__(f"{what} {channel!r} of car {car} became non-finite at frame {frame}")


_DETAIL_PARTS = [np.array([CHANNELS.index(name) for name in part], dtype=np.int64) for part in _step.DETAIL_PARTS]


def asks_detail(select: np.ndarray) -> int:
    """Which parts of physics.step.DETAIL_PARTS the channels ``select`` names ask for, a bit each (their maths then
    runs); 0 for none."""
    return sum(1 << j for j, part in enumerate(_DETAIL_PARTS) if np.isin(select, part).any())


def every_channel(select: np.ndarray) -> bool:
    """Whether ``select`` is every channel in order (a frame's values are then copied as they are)."""
    return select is ALL or (len(select) == len(CHANNELS) and bool(np.array_equal(select, ALL)))


_EXPONENT = 0x7FF0000000000000  # a float64's exponent field: all ones for inf and nan, and only for them


@scalar
def _finite_bits(bits, i, select, width, whole):
    """Whether every ``bits[i, select[j]]`` (``bits[i, j]`` when ``whole``) is the bit pattern of a finite float64: its
    exponent field not all ones. Integer tests and an OR over them, which the compiler may reorder and so vectorises
    (a sum of (v - v), which says the same, it may not reorder without fast-math)."""
    bad = False
    if whole:
        for j in range(width):
            bad |= (bits[i, j] & _EXPONENT) == _EXPONENT
    else:
        for j in range(width):
            bad |= (bits[i, select[j]] & _EXPONENT) == _EXPONENT
    return not bad


def _block_two(args, inputs, out, dt, frame0, lo, hi):
    """Advance cars ``lo`` to ``hi - 1``, every one a single-track car whose frames run in two parts
    (physics.step.two_part_lanes), over the frames of ``inputs``, (frames, N); the channels ``args.select`` names into
    ``out``. Ranges of cars that do not overlap may run at once, in several threads. :func:`_block_whole` is the
    other cars' block; :class:`Kernel` compiles each when a batch first needs it and cuts a batch of both kinds into
    runs of one.

    ``args`` is an :class:`Args` (built by :func:`new_args`): the cars' parameters, state and scratch
    space, passed as one object so that a call from Python unboxes one argument, not a dozen arrays.
    ``out`` is float64 (frames, N, len(select)): frame k's value of channel ``CHANNELS[select[j]]`` for car i
    is ``out[k, i, j]`` (with every channel selected in order, ``out`` is a float view of (frames, N)
    TELEMETRY records). ``state`` (N,) is advanced in place. ``fault`` (N, 2) comes in as -1 and gets,
    for a car that stopped, the frame and the index of the field (a channel, or len(CHANNELS) + a
    float state field): the guard checks the next state and the channels written, nothing else.
    ``spare_values`` is ``spare_telemetry`` viewed as float64 (N, len(CHANNELS)).
    ``drivers`` (N,) are the cars' DRIVER records, ``track`` the rows of their paths (physics.path).
    ``ground`` holds the rows of the road surfaces (physics.surface), car i's from ``ground_index[i, 0]``,
    ``ground_index[i, 1]`` of them. ``lanes`` (N, LANE_SPACE) is each car's scratch space for its tyres'
    magic-formula curves, computed in SIMD lanes (physics.tyre.magic_lanes): a group of up to ``GROUP`` single-track
    neighbours shares its rows as one run of floats, their curves side by side (as many lanes as they fill, rounded up
    to whole vector registers of ``args.narrow`` lanes, physics.tyre.narrow()). ``kept`` (N, KEPT + 1): what a
    single-track car keeps between the two parts of its frame, and whether it still runs.

    A car's frames give the same bits whatever the group around it: the maths of a frame is the same code in one
    order, the curves are computed lane by lane with no lane reading another, and no fast-math flag lets the
    compiler reorder a sum.
    """
    params, state, spare_state, spare_telemetry = args.params, args.state, args.spare_state, args.spare_telemetry
    spare_values, drivers, select, fault, whole = args.spare_values, args.drivers, args.select, args.fault, args.whole
    track, spare_inputs, ground, ground_index = args.track, args.spare_inputs, args.ground, args.ground_index
    lanes, kept, narrow = args.lanes, args.kept, args.narrow
    frames = inputs.shape[0]
    detail = args.detail
    bits = spare_values.view(np.int64)  # the same memory, for the guard's integer test
    i0 = lo
    while i0 < hi:
        i1 = min(i0 + GROUP, hi)
        # Side by side, frame by frame: each car's frame up to its tyres (physics.step.first_part), the curves of all
        # of them in one call (SIMD lanes across cars), then the rest of each car's frame (last_part). The curves are
        # the group's own rows of ``lanes`` seen as one (LANE_ROWS, width) array, car i's from lane ``first`` on;
        # row i of ``kept`` holds its KEPT floats between the parts, then whether it still runs (1.0) or stopped.
        used = 0
        for i in range(i0, i1):
            used += two_part_lanes(params[i])
            kept[i, KEPT] = 1.0
        width = -(-used // narrow) * narrow  # whole registers: a loop's remainder runs one lane at a time
        curves = lanes[i0:i1].reshape(-1)[:LANE_ROWS * width].reshape((LANE_ROWS, width))
        for k in range(frames):
            t = (frame0 + k) * dt
            first = 0
            for i in range(i0, i1):
                p = params[i]
                if kept[i, KEPT] != 0.0:
                    look = _drive(drivers, track, p, state, inputs, spare_inputs, i, k, dt, t)
                    u = spare_inputs[i] if drivers[i].on else inputs[k, i]
                    # The driver's memory and channels are fields no car's frame writes: carried before the frame.
                    driver.carry(look, spare_state[i], spare_telemetry[i])
                    first_part(p, state[i], u, dt, ground, ground_index[i, 0], ground_index[i, 0] + ground_index[i, 1],
                               curves, first, kept, i)
                first += two_part_lanes(p)
            magic_lanes(curves)  # lanes past ``used`` compute what they hold, and no car reads them
            first = 0
            for i in range(i0, i1):
                p = params[i]
                if kept[i, KEPT] != 0.0:
                    u = spare_inputs[i] if drivers[i].on else inputs[k, i]
                    last_part(p, state[i], u, spare_state[i], spare_telemetry[i], dt, t, curves, first, kept, i)
                    if detail:
                        detail_channels(p, state[i], spare_telemetry[i], detail)
                    if not _store(select, whole, spare_values, bits, spare_state, state, fault, out, i, k, frame0):
                        kept[i, KEPT] = 0.0
                first += two_part_lanes(p)
        i0 = i1


def _block_whole(args, inputs, out, dt, frame0, lo, hi):
    """:func:`_block_two` for cars that all run their frames whole, car by car: four-wheel cars and the kinematic
    bicycle. A four-wheel car computes its tyres' eight curves in its own row of ``args.lanes``, seen as (LANE_ROWS,
    LANES)."""
    params, state, spare_state, spare_telemetry = args.params, args.state, args.spare_state, args.spare_telemetry
    spare_values, drivers, select, fault, whole = args.spare_values, args.drivers, args.select, args.fault, args.whole
    track, spare_inputs, ground, ground_index = args.track, args.spare_inputs, args.ground, args.ground_index
    lanes = args.lanes
    frames = inputs.shape[0]
    detail = args.detail
    bits = spare_values.view(np.int64)  # the same memory, for the guard's integer test
    for i in range(lo, hi):
        p = params[i]
        road = ground[ground_index[i, 0]:ground_index[i, 0] + ground_index[i, 1]]
        # Views made once per car, not per frame: each costs two atomic reference counts (the channels'
        # values are indexed in spare_values itself, with no view of the car's row at all).
        lane = lanes[i, :LANE_ROWS * LANES].reshape((LANE_ROWS, LANES))
        for k in range(frames):
            t = (frame0 + k) * dt
            look = _drive(drivers, track, p, state, inputs, spare_inputs, i, k, dt, t)
            u = spare_inputs[i] if drivers[i].on else inputs[k, i]
            whole_frame(p, state[i], u, spare_state[i], spare_telemetry[i], dt, t, road, lane)
            if detail:
                detail_channels(p, state[i], spare_telemetry[i], detail)
            driver.carry(look, spare_state[i], spare_telemetry[i])
            if not _store(select, whole, spare_values, bits, spare_state, state, fault, out, i, k, frame0):
                break


@scalar(inline=True)
def _drive(drivers, track, p, state, inputs, spare_inputs, i, k, dt, t):
    """Car ``i``'s driver at frame ``k``: one that is on writes the frame's inputs into ``spare_inputs[i]`` (the keys
    of ``inputs[k, i]`` with its controls); returns its Look (physics.driver), at rest when nobody drives."""
    if drivers[i].on:
        return driver.drive(drivers[i], track, p, state[i], inputs[k, i], spare_inputs[i], dt, t)
    return driver.idle(state[i])


@scalar(inline=True)
def _store(select, whole, spare_values, bits, spare_state, state, fault, out, i, k, frame0):
    """After car ``i``'s frame ``k``: the guard, then the frame's channels into ``out[k, i]`` and the next state into
    ``state[i]``. False, with nothing stored and the fault recorded, where a channel written or a state field is not
    finite."""
    width = select.shape[0]
    bad = -1
    if not _finite_bits(bits, i, select, width, whole):  # one pass decides the usual case
        for j in range(width):
            if not math.isfinite(spare_values[i, select[j]]):
                bad = select[j]
                break
    if bad < 0:
        bad = nonfinite_state(spare_state[i])
        if bad >= 0:
            bad += len(CHANNELS)
    if bad >= 0:
        fault[i, 0] = frame0 + k
        fault[i, 1] = bad
        return False
    # Loops, not out[k, i, :] = values: numpy's slice assignment compiles a dozen helpers more; and indexed whole, not
    # through a row view, which would cost two atomic reference counts a frame.
    if whole:
        for j in range(width):
            out[k, i, j] = spare_values[i, j]
    else:
        for j in range(width):
            out[k, i, j] = spare_values[i, select[j]]
    copy_state(spare_state[i], state[i])
    return True


ARG_NAMES = ("params", "state", "select", "spare_state", "spare_telemetry", "spare_values", "fault", "drivers",
             "track", "spare_inputs", "ground", "ground_index", "lanes", "kept", "narrow", "detail", "whole")


def _arg_types() -> list:
    rec = numba.from_dtype
    return [numba.types.Array(rec(records.PARAMS), 1, "C"), numba.types.Array(rec(records.STATE), 1, "C"),
            numba.types.Array(numba.int64, 1, "C"), numba.types.Array(rec(records.STATE), 1, "C"),
            numba.types.Array(rec(records.TELEMETRY), 1, "C"), numba.types.Array(numba.float64, 2, "C"),
            numba.types.Array(numba.int64, 2, "C"), numba.types.Array(rec(records.DRIVER), 1, "C"),
            numba.types.Array(numba.float64, 2, "C"), numba.types.Array(rec(records.INPUTS), 1, "C"),
            numba.types.Array(numba.float64, 2, "C"), numba.types.Array(numba.int64, 2, "C"),
            numba.types.Array(numba.float64, 2, "C"), numba.types.Array(numba.float64, 2, "C"), numba.int64,
            numba.int64, numba.types.boolean]


if DISABLED:
    def new_args(*arrays):
        """The block's arguments as one object (plain Python: a namespace of recarray views)."""
        return types.SimpleNamespace(**{name: a.view(np.recarray) if isinstance(a, np.ndarray) and a.dtype.names
                                        else a for name, a in zip(ARG_NAMES, arrays, strict=True)})
else:
    from numba.experimental import structref

    from .jit import quick_load

    @structref.register
    class ArgsType(numba.types.StructRef):
        """The numba type of :class:`Args`."""

        def preprocess_fields(self, fields):
            return tuple((name, numba.types.unliteral(typ)) for name, typ in fields)

    class Args(structref.StructRefProxy):
        """The block's arguments but inputs, output, dt and frame: built by :func:`new_args`, read in compiled code."""

    ARGS = ArgsType(list(zip(ARG_NAMES, _arg_types(), strict=True)))
    structref.define_boxing(ArgsType, Args)

    @numba.njit(cache=True)
    def new_args(params, state, select, spare_state, spare_telemetry, spare_values, fault, drivers, track,
                 spare_inputs, ground, ground_index, lanes, kept, narrow, detail, whole):
        """The block's arguments as one :class:`Args` (it holds the arrays; their types are checked by the caller).
        ``detail`` says which parts of the detail channels ``select`` asks for (:func:`asks_detail`, a bit each) and
        ``whole`` whether it is every channel in order (:func:`every_channel`)."""
        args = structref.new(ARGS)
        args.params = params
        args.state = state
        args.select = select
        args.spare_state = spare_state
        args.spare_telemetry = spare_telemetry
        args.spare_values = spare_values
        args.fault = fault
        args.drivers = drivers
        args.track = track
        args.spare_inputs = spare_inputs
        args.ground = ground
        args.ground_index = ground_index
        args.lanes = lanes
        args.kept = kept
        args.narrow = narrow
        args.detail = detail
        args.whole = whole
        return args

    quick_load(new_args)


def _signature():
    rec = numba.from_dtype
    return (ARGS, numba.types.Array(rec(records.INPUTS), 2, "C"), numba.types.Array(numba.float64, 3, "C"),
            numba.float64, numba.int64, numba.int64, numba.int64)


_announced: set[str] = set()  # the blocks this process compiled (a miss in the cache), each said once


def _announce(kind: str) -> None:
    if kind not in _announced:
        _announced.add(kind)
        print(f"carbench: compiling the car model, once ({KIND_NAMES[kind]}: about {COMPILE_SECONDS[kind]} s on a "
              f"2-core machine, up to {SLOW_COMPILE_SECONDS} s on a slow one)", file=sys.stderr, flush=True)


if not DISABLED:
    from .jit import ModelCache, load_without_refresh

    class _ModelCache(ModelCache):
        """A block's cache: a miss is the block's first compile, which is said once. A hit is loaded without
        refreshing numba's context (physics.jit.load_without_refresh)."""

        def __init__(self, py_func, key: str, kind: str):
            super().__init__(py_func, key)
            self._kind = kind

        def load_overload(self, sig, target_context):
            data = load_without_refresh(self, sig, target_context)
            if data is None:
                _announce(self._kind)
            return data


KINDS = ("two", "whole")
"""The kernel's compiled blocks: ``two`` for single-track cars, whose frames run in two parts (:func:`_block_two`),
``whole`` for four-wheel cars and the kinematic bicycle (:func:`_block_whole`). Each is compiled when a batch first
needs it: a single-track car's first run does not wait for the four-wheel car's compile, nor the other way."""


def two_part(params: np.ndarray) -> np.ndarray:
    """Which of the cars ``params`` (PARAMS records) run their frames in two parts, as single-track cars do
    (physics.step.two_part_lanes): bool (N,)."""
    return ~(params["four_wheel"] | params["kinematic"])


def kinds_of(params: np.ndarray) -> tuple[str, ...]:
    """The kernel's blocks (:data:`KINDS`) the cars ``params`` need."""
    two = two_part(params)
    return tuple(kind for kind, needed in zip(KINDS, (two.any(), not two.all()), strict=True) if needed)


def _no_cars(args, inputs, out, dt, frame0, lo, hi) -> None:
    """The block of a batch of no cars: nothing to advance, nothing to compile."""


class Kernel:
    """One model compiled for batches: ``run`` advances N cars over a block of frames.

    Each of its blocks (:data:`KINDS`) is compiled on first use, one signature; a batch's cars share the threads
    :func:`physics.threads` says (physics.pool).
    """

    def __init__(self, blocks: Mapping[str, Callable], cache_key: str | None, name: str = "default"):
        self.name = name
        self._py = dict(blocks)
        self._key = cache_key
        self._compiled: dict[str, Callable] = {}
        self._lock = threading.Lock()

    def _dispatcher(self, kind: str):
        """The compiled block ``kind``, called without numba's type dispatch (run() checks the arguments' types)."""
        fn = self._compiled.get(kind)
        if fn is not None:
            return fn
        with self._lock:  # two threads asking at once compile once
            if kind not in self._compiled:
                self._compiled[kind] = self._compile(kind)
        return self._compiled[kind]

    def _compile(self, kind: str):
        block = self._py[kind]
        if DISABLED:
            return _as_recarrays(block)
        # No C-callable wrapper: run() calls the Python entry point alone. No GIL: a batch's ranges of cars run
        # on several threads at once (physics.pool).
        dispatcher = numba.njit(nogil=True, error_model="numpy", no_cfunc_wrapper=True)(block)
        if self._key is not None:
            dispatcher._cache = _ModelCache(block, f"{self._key}:block-{kind}", kind)
        dispatcher.compile(_signature())
        dispatcher.disable_compile()
        # The one overload's entry point skips numba's typing of the arguments on every call
        # (several microseconds for record arrays); run() checks dtypes and layout instead.
        (overload,) = dispatcher.overloads.values()
        return overload.entry_point

    def compile(self, params: np.ndarray | None = None) -> float:
        """Compile (or load from the cache) now the blocks the cars ``params`` (PARAMS records) need, every block when
        None; returns the seconds it took."""
        start = time.perf_counter()
        for kind in KINDS if params is None else kinds_of(params):
            self._dispatcher(kind)
        return time.perf_counter() - start

    def entry(self, params: np.ndarray, parallel: bool = False) -> Callable:
        """The compiled block for the cars ``params`` (PARAMS records), for callers that checked their arguments once
        (see :meth:`arguments`): ``entry(args, inputs, out, dt, frame0, lo, hi)`` advances cars ``lo`` to ``hi - 1``,
        ``args`` from :meth:`arguments` for those cars; it trusts the dtypes, shapes and layout of the arrays, and
        ``0 <= lo <= hi <= N``.

        A batch of single-track cars alone, or of the others alone, runs one block; a batch of both kinds runs each
        run of neighbours of one kind through its own. ``parallel``: the cars shared among :func:`physics.threads`
        threads (physics.pool), else all of them in the calling thread. Either way a car gets the same bits.
        """
        two = two_part(params)
        if not len(two):
            fn = _no_cars
        elif two.all() or not two.any():
            fn = self._dispatcher("two" if two[0] else "whole")
        else:
            fn = self._runs(two)
        return pool.across(fn, threads) if parallel else fn

    def _runs(self, two: np.ndarray) -> Callable:
        """A block for a batch of both kinds: each run of neighbours of one kind (``two``: which cars are single-track)
        through that kind's compiled block."""
        cuts = [0, *(np.flatnonzero(two[1:] != two[:-1]) + 1).tolist(), len(two)]
        runs = [(a, b, self._dispatcher("two" if two[a] else "whole")) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

        def block(args, inputs, out, dt, frame0, lo, hi):
            for a, b, fn in runs:
                if max(a, lo) < min(b, hi):
                    fn(args, inputs, out, dt, frame0, max(a, lo), min(b, hi))

        return block

    def arguments(self, params: np.ndarray, state: np.ndarray, work: Workspace, drivers: np.ndarray | None = None,
                  track: np.ndarray | None = None, ground: np.ndarray | None = None,
                  ground_index: np.ndarray | None = None, check: bool = True,
                  select: np.ndarray | None = None):
        """The compiled block's first argument, checked when ``check``: ``entry(args, inputs, out, dt, frame0, lo, hi)``
        advances cars ``lo`` to ``hi - 1``. It holds the arrays given (and ``work``'s), not copies.

        ``select`` is the channels' indices (int64) that ``out`` gets, every channel when None."""
        n = state.shape[0]
        if check:
            _check(params, records.PARAMS, (n,), "params")
            _check(state, records.STATE, (n,), "state")
            if select is not None:
                _check_channels(select)
        if drivers is None:
            drivers, track = work.drivers, work.track
        elif check:
            _check(drivers, records.DRIVER, (n,), "driver")
            if type(track) is not np.ndarray or track.dtype != np.float64 or track.ndim != 2 \
                    or track.shape[1] != len(PATH_COLUMNS) or not track.flags.c_contiguous:
                raise TypeError(f"track: expected a C-contiguous float64 array of shape (rows, {len(PATH_COLUMNS)})")
        if ground is None:
            ground, ground_index = work.ground, work.ground_index
        elif check:
            if type(ground) is not np.ndarray or ground.dtype != np.float64 or ground.ndim != 2 \
                    or ground.shape[1] != SURFACE_COLUMNS or not ground.flags.c_contiguous:
                raise TypeError(f"ground: expected a C-contiguous float64 array of shape (rows, {SURFACE_COLUMNS})")
            if type(ground_index) is not np.ndarray or ground_index.dtype != np.int64 \
                    or ground_index.shape != (n, 2) or not ground_index.flags.c_contiguous:
                raise TypeError(f"ground_index: expected a C-contiguous int64 array of shape ({n}, 2)")
            if np.any(ground_index < 0) or np.any(ground_index.sum(axis=1) > len(ground)):
                raise ValueError("ground_index: a car's surfaces reach past the ground's rows")
        select = ALL if select is None else select
        if not 4 <= work.narrow <= LANES:  # a single-track frame fills four lanes; a four-wheel car has LANES
            raise ValueError(f"Workspace.narrow: {work.narrow} lanes; a single-track car needs 4 to {LANES}")
        return new_args(params, state, select, work.state, work.telemetry, work.values, work.fault, drivers, track,
                        work.inputs, ground, ground_index, work.lanes, work.kept, work.narrow, asks_detail(select),
                        every_channel(select))

    def run(self, params: np.ndarray, state: np.ndarray, inputs: np.ndarray, telemetry: np.ndarray, dt: float,
            frame0: int, parallel: bool = False, work: Workspace | None = None, check: bool = True,
            drivers: np.ndarray | None = None, track: np.ndarray | None = None, ground: np.ndarray | None = None,
            ground_index: np.ndarray | None = None, channels: np.ndarray | None = None,
            then: Callable[[int, int], None] | None = None) -> None:
        """Advance ``state`` (N,) over ``inputs`` (frames, N), writing ``telemetry``.

        With ``channels`` None, ``telemetry`` is (frames, N) TELEMETRY records and gets every channel;
        else ``channels`` holds channel indices (int64, see :func:`channel_indices`) and ``telemetry`` is
        float64 (frames, N, len(channels)) and gets only those: what the other channels alone need
        is neither stored nor checked.
        ``drivers`` (N,) DRIVER records and ``track`` (rows, len(physics.path.COLUMNS)) float64 are the
        cars' closed-loop drivers and their paths (none when None); ``ground`` (rows, 4) float64 the road
        surfaces' rows (physics.surface) and ``ground_index`` (N, 2) int64 each car's first row and count.
        ``work`` is scratch space for N cars, reused between calls (allocated when None). The
        arrays' dtypes, shapes and layout are checked (the compiled code trusts them) unless
        ``check`` is False, for callers that built them so.
        ``then(lo, hi)``, when given, is called once cars ``lo`` to ``hi - 1`` have their frames in ``telemetry``, by
        the thread that stepped them (with ``parallel``, the ranges' threads at once: it reads and writes only what
        belongs to those cars); a car the guard stopped has the frames after its fault unwritten.
        Raises NonFiniteError for the first car (earliest frame, then lowest index) that stopped.
        """
        n = state.shape[0]
        if work is None or work.n != n:
            work = Workspace(n)
        work.fault.fill(-1)
        args = self.arguments(params, state, work, drivers, track, ground, ground_index, check, channels)
        if check:
            _check(inputs, records.INPUTS, (inputs.shape[0], n), "inputs")
        if channels is None:
            if check:
                _check(telemetry, records.TELEMETRY, inputs.shape, "telemetry")
            out = telemetry.view(np.float64).reshape(inputs.shape[0], n, len(CHANNELS))
        else:
            shape = (inputs.shape[0], n, len(channels))
            if check and (type(telemetry) is not np.ndarray or telemetry.dtype != np.float64
                          or telemetry.shape != shape or not telemetry.flags.c_contiguous
                          or not telemetry.flags.writeable):
                raise TypeError(f"telemetry: expected a writeable C-contiguous float64 array of shape {shape}")
            out = telemetry
        if then is None:
            self.entry(params, parallel)(args, inputs, out, float(dt), int(frame0), 0, n)
        elif parallel:
            self.entry(params, True)(args, inputs, out, float(dt), int(frame0), 0, n, then)
        else:
            self.entry(params)(args, inputs, out, float(dt), int(frame0), 0, n)
            then(0, n)
        if n == 1 and work.fault[0, 0] < 0:
            return
        raise_fault(work.fault)


ALL = np.arange(len(CHANNELS), dtype=np.int64)
"""Every channel's index, in order: the selection of a run that stores all of them."""


def channel_indices(names) -> np.ndarray:
    """The indices (int64) of the channels ``names`` (a sequence of at least one name), in that order, for
    :meth:`Kernel.run`'s ``channels``; ValueError naming an unknown one and the known ones."""
    if isinstance(names, str):
        raise TypeError(f"channels: a sequence of channel names, not the string {names!r}")
    names = list(names)
    if not names:
        raise ValueError("channels: name at least one channel (None stores every channel)")
    index = {name: i for i, name in enumerate(CHANNELS)}
    for name in names:
        if name not in index:
            raise ValueError(f"unknown channel {name!r}; the channels are: {', '.join(CHANNELS)}")
    return np.array([index[name] for name in names], dtype=np.int64)


def _check_channels(channels: np.ndarray) -> None:
    if type(channels) is not np.ndarray or channels.dtype != np.int64 or channels.ndim != 1 \
            or not channels.flags.c_contiguous or not len(channels):
        raise TypeError("channels: expected a non-empty C-contiguous int64 array of channel indices")
    if channels.min() < 0 or channels.max() >= len(CHANNELS):
        raise ValueError(f"channels: an index outside 0 .. {len(CHANNELS) - 1}")


def raise_fault(fault: np.ndarray) -> None:
    """Raise NonFiniteError for the first car (earliest frame, then lowest index) that the guard stopped,
    and put the fault table back to -1 for the next call; nothing when no car stopped."""
    stopped = np.flatnonzero(fault[:, 0] >= 0)
    if stopped.size:
        car = int(stopped[np.argmin(fault[stopped, 0])])  # earliest frame; ties: the lowest index
        frame, index = int(fault[car, 0]), int(fault[car, 1])
        fault.fill(-1)
        if index < len(CHANNELS):
            raise NonFiniteError(CHANNELS[index], car, frame)
        raise NonFiniteError(STATE_FLOATS[index - len(CHANNELS)], car, frame, state=True)


def _as_recarrays(fn: Callable) -> Callable:
    """``fn`` (the plain Python block, NUMBA_DISABLE_JIT=1) called with record arrays viewed as recarrays."""

    def call(*args):
        return fn(*(a.view(np.recarray) if isinstance(a, np.ndarray) and a.dtype.names else a for a in args))

    return call


class Workspace:
    """Scratch records for N cars: the next state and telemetry before the guard accepts them, and the fault table."""

    def __init__(self, n: int):
        self.n = n
        self.state = np.empty(n, dtype=records.STATE)
        self.telemetry = np.empty(n, dtype=records.TELEMETRY)
        self.values = self.telemetry.view(np.float64).reshape(n, len(CHANNELS))  # the same memory, by index
        self.fault = np.full((n, 2), -1, dtype=np.int64)
        self.inputs = np.empty(n, dtype=records.INPUTS)  # a driven car's inputs, as the driver wrote them
        self.drivers = records.no_drivers(n)
        self.track = np.zeros((2, len(PATH_COLUMNS)))
        self.ground = np.zeros((1, SURFACE_COLUMNS))  # no surfaces: every car on its own road
        self.ground_index = np.zeros((n, 2), dtype=np.int64)
        # Each car's share of its tyres' curves in SIMD lanes (physics.tyre.magic_lanes, see _block_two): 616 bytes a car,
        # and of its group's frames in two parts: what a car keeps between them and whether it still runs, 304 bytes.
        self.lanes = np.zeros((n, LANE_SPACE))
        self.kept = np.zeros((n, KEPT + 1))
        self.narrow = narrow()  # a single-track car's lanes, 4 to LANES (the kernel reads them as (LANE_ROWS, narrow))


def _check(array: np.ndarray, dtype: np.dtype, shape: tuple, name: str) -> None:
    if type(array) is not np.ndarray or array.dtype != dtype or array.shape != shape \
            or not array.flags.c_contiguous or not array.flags.writeable:
        raise TypeError(f"{name}: expected a writeable C-contiguous numpy array of shape {shape} of "
                        f"physics.records.{name.upper()} records")


def build_kernel(variants: Mapping[str, Callable] | None = None, cache: bool = False) -> Kernel:
    """The model compiled with some subsystem functions replaced, named ``"module.function"``.

    ``build_kernel({"standstill.stop_mask": rule})`` runs ``rule(speed, accel, drive_force,
    stop_speed, weight)`` wherever physics.step applies the stop rule. A replacement takes the
    same arguments and returns the same kind of values as the function it replaces; a plain Python
    function is compiled. Variants are not cached on disk unless ``cache`` is set.
    """
    variants = dict(variants or {})
    if not variants:
        return default_kernel()
    space = dict(vars(_step))
    replaced: dict[str, types.ModuleType] = {}
    for path, fn in variants.items():
        module_name, _, func_name = path.partition(".")
        module = space.get(module_name)
        if not isinstance(module, types.ModuleType) or not hasattr(module, func_name):
            raise ValueError(f"{path!r}: not a subsystem function used by physics.step (module.function)")
        if module_name not in replaced:
            copy = types.ModuleType(f"{module.__name__}[variant]")
            copy.__dict__.update(vars(module))
            replaced[module_name] = copy
        setattr(replaced[module_name], func_name, fn if hasattr(fn, "py_func") or DISABLED else scalar(fn, cache=False))
    space.update(replaced)
    for path in variants:
        module_name, _, func_name = path.partition(".")
        if not (_calls(_step, module_name, func_name) or _calls(_four_wheel, module_name, func_name)):
            hint = (" (the frames run the tyres' magic-formula curves in SIMD lanes: replace tyre.magic_lanes for "
                    "the curve, tyre.combined_slips or tyre.combined_forces for the combined slip)"
                    if path in ("tyre.combined", "tyre.magic", "tyre.pacejka") else "")
            raise ValueError(f"{path!r}: physics.step and physics.four_wheel do not call it, so replacing it would "
                             f"change nothing{hint}")
    key = _variant_key(variants)
    # Every compiled copy is named after its variant: a copy and its original (or another variant's copy, loaded
    # from the cache) must never share a symbol in the code numba links, or a call may reach the wrong one.
    tag = key[:16] if key is not None else f"p{next(_copies)}"
    targets = {(path.partition(".")[0], path.partition(".")[2]) for path in variants}
    stepped = _recompile(_step, space, targets, tag)
    # The four-wheel frame calls physics.step's drivetrain and the subsystems too: it sees the same variants.
    wheels = dict(vars(_four_wheel))
    wheels.update({name: module for name, module in replaced.items() if name in wheels})
    step_copy = types.ModuleType(f"{_step.__name__}[variant]")
    step_copy.__dict__.update(space)
    wheels["_step"] = step_copy
    wheeled = _recompile(_four_wheel, wheels, targets | {("_step", name) for name in stepped}, tag)
    wheels_copy = types.ModuleType(f"{_four_wheel.__name__}[variant]")
    wheels_copy.__dict__.update(wheels)
    space["four_wheel"] = wheels_copy
    if wheeled:  # and the frames of physics.step that call the four-wheel frame (whole_frame, car_frame) see it
        _recompile(_step, space, targets | {("four_wheel", name) for name in wheeled}, f"{tag}w")
    block_space = dict(globals())
    block_space["detail_channels"] = space["detail_channels"]
    for name in ("first_part", "last_part", "whole_frame", "two_part_lanes"):
        block_space[name] = space[name]
    block_space["magic_lanes"] = space["tyre"].magic_lanes
    blocks = {kind: _named(types.FunctionType(fn.__code__, block_space, fn.__name__), tag)
              for kind, fn in _BLOCKS.items()}
    return Kernel(blocks, key if cache else None, name=", ".join(sorted(variants)))


_copies = itertools.count()
_BLOCKS = {"two": _block_two, "whole": _block_whole}


def _variant_key(variants: Mapping[str, Callable]) -> str | None:
    """A digest of the model's sources and the replacements' own (None where a replacement has no source file)."""
    try:
        text = [f"{p}={inspect.getsource(getattr(f, 'py_func', f))}" for p, f in sorted(variants.items())]
    except (OSError, TypeError):
        return None
    return hashlib.sha256((source_key() + "".join(text)).encode()).hexdigest()


def _named(fn: types.FunctionType, tag: str) -> types.FunctionType:
    """``fn`` renamed ``name__tag`` (its qualified name too), which is what numba's symbols are made of."""
    fn.__name__ = f"{fn.__name__}__{tag}"
    fn.__qualname__ = f"{fn.__qualname__}__{tag}"
    return fn


def _recompile(module: types.ModuleType, space: dict, targets: set[tuple[str, str]], tag: str = "copy") -> set[str]:
    """The compiled functions defined in ``module`` that reach a replaced function, compiled again with ``space`` as
    their globals (in place in ``space``); returns their names.

    ``targets`` are (module name, function name) pairs as ``module``'s code spells the calls (``tyre.slip``). A
    function reaches one when its code names both parts, or calls a function of ``module`` that does; the others
    stay as they are, compiled (or cached) once for every variant.
    """
    own = {}
    for name, value in vars(module).items():
        py = getattr(value, "py_func", value if DISABLED and inspect.isfunction(value) else None)
        if py is not None and getattr(py, "__module__", None) == module.__name__:
            own[name] = py
    names = {name: _names(py.__code__) for name, py in own.items()}
    stale = {name for name, used in names.items() if any(a in used and b in used for a, b in targets)}
    grown = True
    while grown:  # callers of what changed change too
        more = {name for name, used in names.items() if name not in stale and used & stale}
        stale |= more
        grown = bool(more)
    for name in stale:
        py = own[name]
        copy = _named(types.FunctionType(py.__code__, space, py.__name__, py.__defaults__), tag)
        space[name] = scalar(copy, cache=False, inline=getattr(py, "_always_inline", False))
    return stale


def _calls(module: types.ModuleType, module_name: str, func_name: str) -> bool:
    """Whether a compiled function defined in ``module`` names ``module_name.func_name`` in its code."""
    for value in vars(module).values():
        py = getattr(value, "py_func", value if DISABLED and inspect.isfunction(value) else None)
        if py is not None and getattr(py, "__module__", None) == module.__name__:
            used = _names(py.__code__)
            if module_name in used and func_name in used:
                return True
    return False


def _names(code: types.CodeType) -> set[str]:
    """Every global and attribute name ``code`` uses, its nested code's included."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


_default: Kernel | None = None


def default_kernel() -> Kernel:
    """The model as shipped, cached on disk."""
    global _default
    if _default is None:
        _default = Kernel(_BLOCKS, source_key())
    return _default
