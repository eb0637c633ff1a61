"""The compiled model's promises: plain Python under NUMBA_DISABLE_JIT=1, concurrent kernels, the
non-finite guard, and the compile cache with its one line on the first run.

The subprocess tests start fresh interpreters; they load the kernel from the cache the rest of
the suite has filled, except the cache test, which compiles the kernel once into an empty user
cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers import DT, keys, preset
from numba_cache import seed_subsystems

from physics import NonFiniteError, Simulation
from physics.presets import scripts_dir
from physics.records import TELEMETRY

REPO = Path(__file__).resolve().parents[2]
JIT_RTOL = 0.0  # plain Python against compiled: the same operations, and no libm call (physics.approx): the same bits
# Short enough for plain Python: a manual car through launch, clutch and coast; the single-track sedan's tyres in
# lanes sliding backwards; the four-wheel sedan steered along a path by the closed-loop driver (the first 6 s of
# the lane change's run-up: its speed control and its line). Script: (seconds run, frames).
SCRIPTS = {"clutch_coast.toml": (None, 961), "backwards_slide_brake.toml": (None, 901), "iso3888_2.toml": (6.0, 721)}

REPLAY_TO_NPY = """
import sys
from dataclasses import replace
import numpy as np
from workbench.scripts.program import compile_script
from workbench.runs.replay import replay
from workbench.scripts.format import load_script
script = load_script(sys.argv[1])
if len(sys.argv) > 3:  # the first seconds only, without the expectations about the rest
    script = replace(script, duration=float(sys.argv[3]), expects=())
(result,) = replay([compile_script(script)])
np.save(sys.argv[2], result.log.matrix())
"""


def _python(code: str, *args: str, env: dict | None = None, cwd: Path = REPO, timeout: float = 240.0):
    full = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_shipped_script_runs_the_same_as_plain_python(tmp_path, script):
    path = str(scripts_dir() / script)
    seconds, frames = SCRIPTS[script]
    cap = () if seconds is None else (str(seconds),)
    plain, compiled = tmp_path / "plain.npy", tmp_path / "compiled.npy"
    done = _python(REPLAY_TO_NPY, path, str(plain), *cap, env={"NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr  # nothing compiles under NUMBA_DISABLE_JIT
    done = _python(REPLAY_TO_NPY, path, str(compiled), *cap)
    assert done.returncode == 0, done.stderr
    a, b = np.load(plain), np.load(compiled)
    assert a.shape == b.shape and a.shape[0] == frames
    assert np.all(np.isfinite(a))
    assert np.all(np.abs(a - b) <= JIT_RTOL * np.maximum(np.abs(a), np.abs(b)))


CONCURRENT = """
import threading
import numpy as np
from physics import Inputs, Simulation, load_preset, threads
from physics.records import INPUTS, inputs_records

sedan = load_preset("sedan").params
block = np.zeros((120, 2000), dtype=INPUTS)
inputs_records(Inputs.from_keys(2000, {"throttle", "left"}), block[:1])
block[:] = block[0]
errors = []

def batches():
    try:
        for _ in range(3):
            Simulation(sedan, n=2000, parallel=True).run(block)
    except BaseException as exc:
        errors.append(exc)

background = threading.Thread(target=batches)
background.start()
sim = Simulation(sedan, n=1)
u = Inputs.from_keys(1, {"throttle"})
steps = 0
while background.is_alive() or steps < 500:
    sim.step(u)
    steps += 1
background.join()
alone = Simulation(sedan, n=1)
for _ in range(steps):
    alone.step(u)
assert not errors, errors
assert alone.state.tobytes() == sim.state.tobytes()
print("ok", steps, threads())
"""


def test_a_batch_shared_among_threads_beside_single_steps_in_another_thread():
    # The window's steps beside a background batch shared among threads (physics.pool): the batch's threads and
    # the GUI thread run the one compiled block at once, and the stepped car gets the bits it gets alone.
    done = _python(CONCURRENT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok")


def test_a_non_finite_value_stops_the_run_and_names_channel_car_and_frame():
    sim = Simulation(preset("sedan"), n=4, dt=DT)
    for _ in range(120):
        sim.step(keys("throttle", n=4))
    before = sim.telemetry.records.copy()
    sim.state.x[3] = np.inf  # a corrupted state: the guard must catch it before it reaches telemetry
    with pytest.raises(NonFiniteError, match=r"^channel 'x' of car 3 became non-finite at frame 120$") as caught:
        sim.step(keys("throttle", n=4))
    assert (caught.value.channel, caught.value.car, caught.value.frame) == ("x", 3, 120)
    assert sim.frame == 120 and sim.telemetry.records.tobytes() == before.tobytes()


def test_the_guard_writes_no_non_finite_telemetry_in_a_block():
    sim = Simulation(preset("sedan"), n=3, dt=DT)
    block = np.zeros((50, 3), dtype=__import__("physics").records.INPUTS)
    sim.run(block[:10])
    sim.state.rpm[1] = np.nan
    out = np.zeros((40, 3), dtype=TELEMETRY)
    with pytest.raises(NonFiniteError, match="channel 'rpm' of car 1 became non-finite at frame 10"):
        sim.run(block[10:], out)
    for name in TELEMETRY.names:
        assert np.all(out[:, 1][name] == 0.0), name  # nothing written for the stopped car
        assert np.all(np.isfinite(out[:, [0, 2]][name])), name
    assert np.all(out[:, 0]["t"] == (10 + np.arange(40)) * DT)  # the other cars ran their frames


COLD_START = """
import os
import sys
from pathlib import Path

if sys.argv[1] == "read-only":  # the package directory as in a system site-packages (we may run as root)
    package = str(Path.cwd() / "physics")
    real_access = os.access
    os.access = lambda path, mode, **kw: False if str(path) == package and mode & os.W_OK else real_access(path, mode, **kw)
from physics import Inputs, Simulation, load_preset
sim = Simulation(load_preset("sedan").params, n=1)
sim.step(Inputs.from_keys(1, {"throttle"}))
print(os.environ.get("NUMBA_CACHE_DIR", "in-tree"), sim.channel("rpm")[0])
"""


def test_a_read_only_install_compiles_once_into_the_user_cache(tmp_path):
    # The kernel goes to ~/.cache/carbench/numba (here under XDG_CACHE_HOME), the first start says
    # so in one line, the second start is silent and gives the same result.
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "NUMBA_CACHE_DIR": ""}
    seed_subsystems(tmp_path / "cache" / "carbench" / "numba")  # only the kernel left to compile
    first = _python(COLD_START, "read-only", env=env)
    second = _python(COLD_START, "read-only", env=env)
    assert first.returncode == 0, first.stderr[-2000:]
    assert second.returncode == 0, second.stderr[-2000:]
    lines = [line for line in first.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("carbench: compiling the car model, once (four-wheel cars and the "
                                                   "kinematic bicycle: about "), first.stderr
    assert second.stderr.strip() == ""
    cache = tmp_path / "cache" / "carbench" / "numba"
    assert first.stdout == second.stdout and first.stdout.startswith(str(cache))
    assert list(cache.rglob("*.nbi"))


def test_a_warm_start_is_silent():
    first = _python(COLD_START, "in-tree")  # compiles into the tree's cache if nothing has yet
    assert first.returncode == 0, first.stderr[-2000:]
    done = _python(COLD_START, "in-tree")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.strip() == ""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python has no wrappers to leave out")
def test_subsystems_compile_without_entry_wrappers_and_still_answer_python():
    # Compiled callers never use numba's Python and C entry wrappers; leaving them out of every subsystem took about a
    # third off the first compile. A call from Python still works (through a second dispatcher) and gives the bits
    # plain Python gives.
    from physics import jit, tyre

    for fn in (tyre.magic, tyre.combined_slips, tyre.combined_forces):
        assert isinstance(fn, jit.Subsystem)
        assert fn.targetoptions["no_cpython_wrapper"] and fn.targetoptions["no_cfunc_wrapper"]
    args = (0.07, 11.3, 1.9, 0.97, 4321.0)
    assert tyre.magic(*args) == tyre.magic.py_func(*args)
    assert tyre.magic._python is not None and tyre.magic._python.targetoptions.get("no_cpython_wrapper") is None
    # Cached in files of its own: never handed the kernel's wrapper-less overload from a shared index.
    assert isinstance(tyre.magic._python._cache, jit.PythonCallCache)
    assert tyre.magic._python._cache._cache_file._index_path.endswith("-python.nbi")
    assert not tyre.magic._cache._cache_file._index_path.endswith("-python.nbi")
    slips = tyre.combined_slips(0.05, -0.03, 4000.0, 1.0, 0.95, 0.1, 0.12)
    assert slips == tyre.combined_slips.py_func(0.05, -0.03, 4000.0, 1.0, 0.95, 0.1, 0.12)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_a_subsystem_called_with_constant_lane_numbers_compiles_once():
    # Compiled callers pass lane numbers as constants (tyre.put_combined(lanes, 0, ...)); numba would compile one
    # specialisation per constant. physics.jit.Subsystem types them as plain integers: one compile for all four.
    import numba

    from physics import jit, tyre

    put = jit.scalar(tyre.put_lane.py_func, cache=False)

    @numba.njit
    def fill(lanes):
        put(lanes, 0, 1.0, 2.0, 3.0, 4.0, 5.0)
        put(lanes, 1, 1.5, 2.0, 3.0, 4.0, 5.0)
        put(lanes, 2, 2.0, 2.0, 3.0, 4.0, 5.0)
        put(lanes, 3, 2.5, 2.0, 3.0, 4.0, 5.0)

    lanes = np.zeros((tyre.LANE_ROWS, tyre.LANES))
    fill(lanes)
    assert lanes[0, :4].tolist() == [1.0, 1.5, 2.0, 2.5]
    assert len(put.overloads) == 1
    (signature,) = put.signatures
    assert str(signature[1]) == "int64"


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python counts no references")
def test_subsystems_count_no_references_so_they_return_and_make_no_array():
    # Subsystems are compiled without numba's reference counts: an array argument cost two atomic operations a call.
    # That is only sound while no subsystem returns an array (its caller would give back a reference it was never
    # given) or makes one; both are refused when compiled.
    import numba

    from physics import jit, tyre

    if "_nrt" not in jit._CALLEE_OPTIONS:
        pytest.skip("this numba has no _nrt option: its subsystems count references")
    assert tyre.magic_lanes.targetoptions["_nrt"] is False

    def itself(lanes, j):  # numba lets this through without reference counts: the subsystem refuses it
        return lanes

    def pair_of(lanes, j):
        return lanes[j, 0], lanes

    def maybe(lanes, j):  # an optional array: numba lets it through too
        return lanes if j > 0 else None

    def row_of(lanes, j):  # numba refuses a view returned without reference counts itself
        return lanes[j]

    def made(x):
        out = np.empty(3)
        out[0] = x
        return out[0]

    lanes = np.arange(8.0).reshape(2, 4)
    for fn, said in ((itself, "returns no array"), (pair_of, "returns no array"), (maybe, "returns no array"),
                     (row_of, "Only accept returning")):
        sub = jit.scalar(fn, cache=False)

        @numba.njit
        def call(lanes, sub=sub):
            return sub(lanes, 1)

        with pytest.raises(Exception, match=said):
            call(lanes)
    sub = jit.scalar(made, cache=False)

    @numba.njit
    def call_made(x):
        return sub(x)

    with pytest.raises(Exception, match="empty"):  # no implementation of np.empty without reference counts
        call_made(2.0)

    # A subsystem that reads an array it is given still works, called from compiled code and from Python.
    sub = jit.scalar(lambda lanes, j: lanes[j, 1] + lanes[j, 2], cache=False)

    @numba.njit
    def call_read(lanes):
        return sub(lanes, 1)

    assert call_read(lanes) == 11.0
    assert sub(lanes, 0) == 3.0


@pytest.mark.parametrize("first", ["physics", "workbench.numba_env"])  # the CLI's layer check may import numba first
@pytest.mark.parametrize("setting, colours", [(None, False), ("", True)])
def test_numbas_thrown_away_error_messages_are_not_coloured_unless_the_user_asks(setting, colours, first):
    # The first compile makes and throws away thousands of error messages; colouring them (colorama, which
    # pyqtgraph installs) cost seconds of it. A user's own setting, even an empty one, is left as it is.
    pytest.importorskip("colorama")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"}
    if setting is not None:
        env["NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"] = setting
    code = f"import {first}, numba.core.errors as e; print(type(e.termcolor()).__name__)"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=240.0)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (done.stdout.strip() == "HighlightColorScheme") is colours, done.stdout


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python types nothing")
def test_scalar_operators_skip_numbas_array_rules_with_the_same_answer():
    import itertools
    import operator

    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.core.typing import npydecl

    from physics import jit

    assert jit.SCALAR_OPERATORS_QUICK
    patched = npydecl.NumpyRulesArrayOperator.generic
    original = patched._original
    context = cpu_target.typing_context
    kinds = [types.float64, types.int64, types.boolean, types.float32, types.complex128, types.uint8,
             types.Array(types.float64, 1, "C"), types.Array(types.int64, 2, "A"), types.UniTuple(types.float64, 2),
             types.none]
    classes = [cls for cls in npydecl.NumpyRulesArrayOperator.__subclasses__()
               if cls.__name__.startswith("NumpyRulesArrayOperator_")]
    assert {cls.key for cls in classes} >= {operator.add, operator.mul, operator.truediv, operator.lt}
    compared = 0
    for cls, (a, b) in itertools.product(classes, itertools.product(kinds, repeat=2)):
        template = cls(context)
        assert patched(template, (a, b), {}) == original(template, (a, b), {}), (cls.key, a, b)
        compared += 1
    assert compared == len(classes) * len(kinds) ** 2

    # Compiled code still gets NumPy's array operators, in place and unary ones included.
    import numba

    @numba.njit
    def mixed(a, x):
        b = a * x + 1.0
        b += a
        return -b, x * 2.0 < 3.0

    out, small = mixed(np.arange(3.0), 0.5)
    assert np.array_equal(out, -(np.arange(3.0) * 1.5 + 1.0)) and small


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_a_record_type_is_spelled_as_numba_spells_it():
    import numba
    from numba.core.types import npytypes

    from physics import jit, records

    assert jit.RECORDS_SPELLED_ONCE
    original = npytypes.Record.__repr__._original
    for dtype in (records.PARAMS, records.STATE, records.TELEMETRY, records.INPUTS, records.DRIVER):
        kind = numba.from_dtype(dtype)
        assert repr(kind) == original(kind)
        assert repr(kind) == repr(kind) and f"'{dtype.names[0]}'" in repr(kind)
    # Two record types of different fields are spelled apart, however often each is asked.
    a, b = (numba.from_dtype(np.dtype([(name, np.float64)])) for name in ("left", "right"))
    assert [repr(a), repr(b), repr(a)] == [original(a), original(b), original(a)]
    assert repr(a) != repr(b)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_statements_list_the_same_variables_in_the_same_order_as_numbas_own_listing(monkeypatch):
    # physics.jit lists an IR statement's variables by the type of each value it walks; numba's own helper tests
    # each value four times. Every statement of the model's car frame, four-wheel frame and detail channels, listed
    # by each (numba's installed for the whole walk: its nested calls go through the method too), compared.
    import operator
    import weakref

    from numba.core import compiler, ir

    from physics import jit, step

    assert jit.VARIABLES_BY_TYPE
    patched = ir.Inst._rec_list_vars
    original = patched._original
    statements = [stmt for fn in (step.car_frame.py_func, step.four_wheel.four_wheel_frame.py_func,
                                  step.detail_channels.py_func)
                  for block in compiler.run_frontend(fn).blocks.values() for stmt in block.body]
    a, b, c = (ir.Var(ir.Scope(None, ir.unknown_loc), name, ir.unknown_loc) for name in "abc")
    holder = ir.Assign(a, b, ir.unknown_loc)
    # Nested lists, tuples and dicts, values of no kind, and proxies (each is what it stands for, whatever else of
    # its type came first).
    expr = ir.Expr.binop(operator.sub, a, c, ir.unknown_loc)
    values = [{"x": [a, (b, 1.5, "s")], "y": {"z": c, "w": None}, "v": ir.Expr.binop(operator.add, a, c, ir.unknown_loc)},
              [weakref.proxy(expr), weakref.proxy(c)]]

    def listed():
        return ([[id(v) for v in stmt.list_vars()] for stmt in statements],
                [[v.name for v in holder._rec_list_vars(value)] for value in values])

    ours = listed()
    monkeypatch.setattr(ir.Inst, "_rec_list_vars", original)
    theirs = listed()
    assert len(statements) > 500 and sum(map(len, theirs[0])) > 1000  # not a comparison of empty lists
    assert ours == theirs
    assert theirs[1] == [["a", "b", "c", "a", "c"], ["a", "c", "c"]]


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_a_subsystems_machine_code_is_emitted_only_when_something_needs_it():
    # A subsystem's library is finalised without machine code and without optimising its module as a whole: its caller
    # links it in, optimises and emits once. Its assembly, asked for, is emitted then. An ordinary function is not
    # touched.
    import math

    import numba

    from physics import jit

    assert jit.MACHINE_CODE_WHEN_NEEDED

    def half_hypot(x, y):
        return 0.5 * math.hypot(x, y)

    callee = jit.scalar(half_hypot, cache=False)

    @numba.njit(error_model="numpy")
    def caller(x, y):
        return callee(x, y) + 1.0

    assert caller(3.0, 4.0) == 3.5
    (inner,) = callee.overloads.values()
    (outer,) = caller.overloads.values()
    assert inner.library._deferred and inner.library._unemitted and inner.library._unoptimised  # never run
    assert not getattr(outer.library, "_deferred", False) and not getattr(outer.library, "_unemitted", False)
    assert callee(6.0, 8.0) == 5.0  # from Python: the second dispatcher, an ordinary one
    assembly = callee.inspect_asm(callee.signatures[0])  # asked for: emitted now, optimised first
    assert "half_hypot" in assembly and not inner.library._unemitted and not inner.library._unoptimised
    assert caller(6.0, 8.0) == 6.0


MUTUAL_RECURSION = '''
import numba
from physics import jit

def _is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)

def _is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)

is_even = jit.scalar(_is_even, cache=False)
is_odd = jit.scalar(_is_odd, cache=False)

@numba.njit
def parity(n):
    return is_even(n), is_odd(n)

print(parity(10), parity(7), is_even(4), is_odd(4))
'''


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_mutually_recursive_subsystems_are_linked_as_numba_links_them(tmp_path):
    # numba calls a function still being compiled through a pointer it fills when a module defining it is emitted: a
    # subsystem whose module takes part in that is emitted at once. In a fresh process, so that a crash fails the test.
    (tmp_path / "parity.py").write_text(MUTUAL_RECURSION)
    done = _python("import sys; sys.path.insert(0, sys.argv[1]); import parity", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "(True, False) (False, True) True False"


CACHED_CALLEE = '''
import math, sys
import numba
from physics import jit

def _half_hypot(x, y):
    return 0.5 * math.hypot(x, y)

half_hypot = jit.scalar(_half_hypot)

@numba.njit(error_model="numpy")
def caller(x, y):
    return half_hypot(x, y) + 1.0
'''


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_a_subsystem_cached_without_machine_code_loads_and_links_in_a_new_process(tmp_path):
    # A subsystem never emitted is cached as its module's bitcode; a later process (a model variant built from the
    # cache) loads it without machine code and links it into a new caller.
    (tmp_path / "cached_callee.py").write_text(CACHED_CALLEE)
    check = """
        import sys
        sys.path.insert(0, sys.argv[1])
        import cached_callee as m
        assert m.caller(3.0, 4.0) == 3.5
        (inner,) = m.half_hypot.overloads.values()
        print(m.half_hypot.stats.cache_hits.get(inner.signature.args, 0), inner.library._unemitted)
    """
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _python(check, str(tmp_path), env=env)
    assert first.returncode == 0, first.stderr[-2000:]
    assert first.stdout.split() == ["0", "True"]
    saved = list((tmp_path / "cache").rglob("*.nbc"))
    assert saved, "the subsystem was not cached"
    again = _python(check, str(tmp_path), env=env)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.split() == ["1", "True"]


PRINTING_SUBSYSTEM = '''
import numba
import numpy as np
from physics import jit

def _loud(x):
    print("loud", x)
    return x * 2.0

loud = jit.scalar(_loud, cache=False)

@numba.njit
def caller(x):
    return loud(x) + 1.0

@numba.njit(parallel=True)
def many(xs):
    out = np.empty_like(xs)
    for i in numba.prange(len(xs)):
        out[i] = loud(xs[i])
    return out

print("caller", caller(3.0))
print("many", many(np.arange(2.0)).tolist())
'''


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_a_subsystem_that_uses_its_environment_works_inside_ordinary_callers(tmp_path):
    # A print (a debugging line in a build_kernel rule) needs the function's environment pointer, which numba sets when
    # the function is compiled; a subsystem not emitted then has it set when a caller that linked it in is. Without
    # it the caller raised "missing Environment", and a parallel caller hung with the GIL held.
    (tmp_path / "loud.py").write_text(PRINTING_SUBSYSTEM)
    done = _python("import sys; sys.path.insert(0, sys.argv[1]); import loud", str(tmp_path), timeout=120.0)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split("\n")
    assert "loud 3.0" in lines and "caller 7.0" in lines and "many [0.0, 2.0]" in lines, done.stdout
    assert done.stdout.count("loud") == 3  # the parallel caller's two lines may interleave: counted, not matched


WARM_BATCH = """
import sys
from physics import Inputs, Simulation, load_preset
for preset in ("sedan", "manual003"):
    sim = Simulation(load_preset(preset).params, n=3)
    for _ in range(3):
        sim.step(Inputs.from_keys(3, {"throttle"}))
refreshed = [m for m in ("numba.np.linalg", "numba.typed.typeddict", "numba.np.random.generator_core")
             if m in sys.modules]
print(",".join(refreshed) or "none", sim.frame == 3)
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python loads nothing compiled")
def test_a_warm_start_loads_the_kernel_without_refreshing_numbas_compiler():
    """numba's cache refreshes its context before loading (importing its linear algebra, random numbers and typed
    containers, and SciPy's BLAS): 0.45 s of every command's first batch, for code nothing compiled calls."""
    _python(WARM_BATCH)  # the kernel and new_args in the cache, whatever ran before
    done = _python(WARM_BATCH)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["none", "True"], done.stdout + done.stderr[-2000:]


DEBUG_INFO = """
import numba
from physics import jit

def half(x):
    return 0.5 * x

inner = jit.scalar(half, cache=False, inline=True)

@numba.njit
def outer(x):
    return inner(x) + 1.0

print(outer(3.0))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python compiles nothing")
def test_a_subsystem_marked_to_inline_compiles_with_numbas_full_debug_information(tmp_path):
    # With NUMBA_DEBUGINFO=1 (or NUMBA_ENABLE_PROFILING=1, which turns it on) numba marks every function noinline, and
    # adding alwaysinline to one stopped the compile with "Can't have alwaysinline and noinline".
    done = _python(DEBUG_INFO, env={"NUMBA_DEBUGINFO": "1", "NUMBA_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["2.5"]


EARLY_NUMBA = """
import os
from pathlib import Path

package = str(Path.cwd() / "physics")  # a read-only install: the cache directory is set by physics.jit
real_access = os.access
os.access = lambda path, mode, **kw: False if str(path) == package and mode & os.W_OK else real_access(path, mode, **kw)
from workbench.numba_env import other_setting_problem

assert other_setting_problem() is None  # numba imported here, before physics chose the cache directory
import numba
import physics  # noqa: F401

numba.njit(lambda x: x + 1)(1)  # a compile: numba reads its settings again where the environment changed
print(numba.config.THREADING_LAYER)
"""


def test_numba_read_early_keeps_the_threading_layer_carbench_chose(tmp_path):
    # With another NUMBA_ setting to check, workbench.numba_env imported numba before physics.jit set NUMBA_CACHE_DIR
    # (a read-only install); the first compile then read the changed environment again and put the threading layer
    # back to numba's default.
    done = _python(EARLY_NUMBA, env={"NUMBA_OPT": "3", "NUMBA_CACHE_DIR": "", "HOME": str(tmp_path),
                                     "XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["omp"]


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python types nothing")
def test_a_scalar_call_typed_once_is_typed_as_numba_types_it(monkeypatch):
    # physics.jit keeps the signature numba found for a built-in function or operator of plain scalar types and gives
    # it again at the next call of the same types. The model's maths typed afresh (copies, not cached): every answer
    # kept is numba's own answer to the same question, and the pairs kept are many (the memo is used, not bypassed).
    import operator
    import types as pytypes

    import numba
    from numba.core import errors, types
    from numba.core.registry import cpu_target
    from numba.core.types import functions

    from physics import approx, jit

    assert jit.SCALAR_CALLS_TYPED_ONCE
    patched = functions.BaseFunction.get_call_type
    original, typed = patched._original, patched.typed
    f8 = types.float64
    for name, sig in (("atan2", (f8, f8)), ("sincos", (f8,)), ("exp", (f8,)), ("log", (f8,)), ("hypot", (f8, f8)),
                      ("tan", (f8,))):
        fn = getattr(approx, name).py_func
        copy = jit.scalar(pytypes.FunctionType(fn.__code__, fn.__globals__, f"{name}__typed_once"), cache=False)
        copy.compile(sig)
    assert len(typed) >= 20
    for (function, context, _target, args), (sig, _impl) in list(typed.items()):
        assert original(function, context, args, {}) == sig, (function, args)

    # Plain scalar questions asked twice get numba's answer both times; ones it cannot answer still fail as they did.
    context = cpu_target.typing_context
    kinds = [types.float64, types.int64, types.boolean, types.float32, types.uint8]
    for op in (operator.add, operator.mul, operator.truediv, operator.lt, operator.pow, min, abs):
        function = context.resolve_value_type(op)
        for a in kinds:
            for b in kinds:
                args = (a,) if op is abs else (a, b)
                try:
                    theirs = original(function, context, args, {})
                except errors.TypingError:
                    with pytest.raises(errors.TypingError):
                        patched(function, context, args, {})
                    continue
                assert patched(function, context, args, {}) == theirs == patched(function, context, args, {})
    # Arrays and literals are not kept.
    function = context.resolve_value_type(operator.add)
    kept = len(typed)
    array = types.Array(types.float64, 1, "C")
    assert patched(function, context, (array, types.float64), {}) == original(function, context, (array, types.float64), {})
    patched(function, context, (types.IntegerLiteral(3), types.float64), {})
    assert len(typed) == kept
    assert numba.njit(lambda a, x: a * x + 1.0)(np.arange(3.0), 2.0).tolist() == [1.0, 3.0, 5.0]


def two_ways(x):
    """A function of two typing templates (test_a_kept_answer_lowers_with_its_own_implementation...): numba keys a
    template of a global function by the function, which must be reachable as a module's attribute."""
    raise NotImplementedError


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="plain Python types nothing")
def test_a_kept_answer_lowers_with_its_own_implementation_after_another_template_took_the_signature():
    # A function with two templates: an overload for floats (x + 2) and a concrete case float64 -> float64 (x + 1)
    # that an int32 reaches by conversion. numba notes which implementation lowers the signature (float64,) on the
    # function type; the int32 call overwrites that note. A float64 call typed again from what physics.jit kept must
    # still lower with the overload, as numba alone does.
    import numba
    from numba import types
    from numba.core.imputils import lower_builtin
    from numba.core.typing.templates import ConcreteTemplate, infer_global, signature
    from numba.extending import overload

    from physics import jit

    assert jit.SCALAR_CALLS_TYPED_ONCE

    @overload(two_ways)
    def _floats(x):
        if isinstance(x, types.Float):
            return lambda x: x + 2.0

    @infer_global(two_ways)
    class _Converted(ConcreteTemplate):
        cases = [signature(types.float64, types.float64)]

    @lower_builtin(two_ways, types.float64)
    def _lower(context, builder, sig, args):
        return builder.fadd(args[0], context.get_constant(types.float64, 1.0))

    first = numba.njit(lambda x: two_ways(x))
    converted = numba.njit(lambda i: two_ways(i))
    again = numba.njit(lambda x: two_ways(x) * 1.0)
    assert first(1.0) == 3.0
    assert converted(numba.int32(1)) == 2.0
    assert again(1.0) == 3.0
