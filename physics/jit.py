"""How the car model is compiled: numba's settings, the subsystem decorator and the thread count.

Importing this module (``physics`` does) fixes numba's setup before anything compiles:

- numba's threading layer is OpenMP (``omp``) unless ``NUMBA_THREADING_LAYER`` names another. The model's
  kernel does not use numba's parallel runtime (a batch's cars share Python threads: physics.pool), but
  code compiled with ``parallel=True`` beside it (the bench's compiled peer) may be launched from two
  threads at once, and numba's ``workqueue`` layer aborts on concurrent launches;
- compiled kernels are cached beside the sources (``physics/__pycache__``); where the package
  directory is read-only (an installed site-packages) they go to ``~/.cache/carbench/numba``
  (``NUMBA_CACHE_DIR`` set by the user wins);
- ``NUMBA_DISABLE_JIT=1`` leaves every function plain Python, so a breakpoint in ``tyre.py`` works;
- numba's error messages are not coloured (``NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING``, unless set): the
  first compile makes some 15,000 of them and throws them away.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import math
import os
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def user_cache_dir() -> Path:
    """Where compiled kernels go when the package directory is not writable."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "carbench" / "numba"


if not os.environ.get("NUMBA_CACHE_DIR") and not os.access(_PACKAGE, os.W_OK):
    os.environ["NUMBA_CACHE_DIR"] = str(user_cache_dir())
# Typing the model, numba makes and throws away some 15,000 error messages (most of them for a constant that has no
# literal type), and with colorama installed (pyqtgraph needs it) it colours each one, twice: 1.5 to 6 s of the first
# compile's 37 to 43 s of CPU on a 2-core AMD EPYC. A user's own setting wins.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

import numba  # noqa: E402  (after the cache directory is chosen)

# numba may have read the environment before the cache directory was chosen above (workbench.numba_env imports it to
# check the user's settings): read again now, or the first compile finds the environment changed, reads it then and
# undoes the threading layer set below.
numba.core.config.reload_config()
if os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
if not os.environ.get("NUMBA_THREADING_LAYER"):
    numba.config.THREADING_LAYER = "omp"

DISABLED = bool(numba.config.DISABLE_JIT)
"""True under NUMBA_DISABLE_JIT=1: the model runs as plain Python."""


def vector_doubles(features: str | None = None, wide=None) -> int:
    """How many float64 values the vector instructions numba compiles for hold, as physics.tyre's lanes use them:
    8 where the CPU has AVX-512 and the compiler fills zmm registers with a loop like the lanes', else 4 (one AVX2
    register; two SSE2 ones). LLVM tunes some AVX-512 CPUs (Intel's server cores among them) to prefer 256-bit
    vectors, so AVX-512 alone does not say it.

    ``features`` is an LLVM feature string (``"+avx2,-avx512f,..."``); by default numba's own
    (``NUMBA_CPU_FEATURES``) or, as numba compiles for the host, the host's (numba's reading of them, which
    ``NUMBA_ENABLE_AVX=0`` trims). ``wide()`` says whether compiled loops use zmm registers (by default a small
    loop is compiled and its machine code read, on an AVX-512 machine only, and the answer kept beside the compiled
    model for the next process: the compile cost 0.6 s of every command's start, see :func:`remembered`).
    """
    if features is None:
        features = numba.config.CPU_FEATURES
    if features is None:
        from numba.core.codegen import get_host_cpu_features

        features = get_host_cpu_features()
    if "+avx512f" not in features.split(","):
        return 4
    if wide is None:
        return 8 if remembered(_loops_fill_zmm, features) else 4
    return 8 if wide() else 4


def compiled_cache_dir() -> Path:
    """Where numba writes the compiled model: ``NUMBA_CACHE_DIR`` where set (above, for a read-only install), else
    the package's ``__pycache__``, as numba's own choice for a writable source folder."""
    return Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else _PACKAGE / "__pycache__"


def remembered(ask: Callable[[], bool], features: str, folder: Path | None = None) -> bool:
    """``ask()``'s answer for this CPU, compiler and settings, read from a small file in ``folder`` (by default the
    compiled model's, :func:`compiled_cache_dir`) or, the first time, asked and written there.

    The file's name is a digest of what the answer depends on: numba's and llvmlite's versions, the CPU's name and
    the feature string numba compiles for, and the optimisation level. A file that cannot be read or holds anything
    but ``0`` or ``1`` is asked again; one that cannot be written is not an error (the next process asks again).
    """
    import llvmlite
    import llvmlite.binding as ll

    cpu = numba.config.CPU_NAME or ll.get_host_cpu_name()
    key = "\n".join((numba.__version__, llvmlite.__version__, cpu, features, str(int(numba.config.OPT))))
    path = (folder or compiled_cache_dir()) / f"zmm-{hashlib.sha256(key.encode()).hexdigest()[:20]}.txt"
    known = _read_small(path)
    if known in (b"0", b"1"):
        return known == b"1"
    answer = bool(ask())
    _write_small(path, "1" if answer else "0")
    return answer


def _read_small(path: Path) -> bytes | None:
    """The first two bytes of ``path`` where it is a regular file, else None: never more (a file grown to gigabytes
    was read whole, and every command ran out of memory), never waiting (a FIFO in its place hung the command)."""
    import stat

    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        return os.read(handle, 2)
    except OSError:
        return None
    finally:
        os.close(handle)


def _write_small(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all (a temporary file beside it, then renamed; created with the
    umask's permissions); where the folder cannot be made or written, nothing."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            os.write(handle, text.encode("ascii"))
        finally:
            os.close(handle)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _loops_fill_zmm(register: str = "zmm") -> bool:
    """Whether numba compiles a loop over float64 lanes, as physics.tyre.magic_lanes is, to zmm registers (or to
    ``register``s)."""
    if DISABLED:
        return False
    import numpy as np

    def lanes(a):
        for j in range(a.shape[1]):
            a[1, j] = math.sqrt(a[0, j]) / (a[0, j] + 1.0)

    probe = numba.njit(error_model="numpy")(lanes)
    probe(np.ones((2, 8)))
    return re.search(rf"%{register}\d", probe.inspect_asm(probe.signatures[0])) is not None  # AT&T syntax: %zmm0


def _replace(owner, name: str, make: Callable) -> bool:
    """Put ``make(original)`` in place of numba's ``owner.<name>``, once: the replacement keeps the original as
    ``_original`` (the tests compare the two). False where this numba has no such thing, else True."""
    original = getattr(owner, name, None)
    if original is None:
        return False
    if getattr(original, "_original", None) is None:  # not replaced already
        replacement = functools.wraps(original)(make(original))
        replacement._original = original
        setattr(owner, name, replacement)
    return True


def _scalar_operators_skip_the_array_rules() -> bool:
    """Make numba's typing of a binary operator (``a * b``) skip its NumPy array rules when no operand is an array.

    numba tries those rules first for every operator it types: it finds the matching NumPy ufunc loop, and only then
    sees that no operand is an array and throws the answer away (``NumpyRulesArrayOperator.generic``; its in-place
    and unary siblings ask first). The model types about 15,000 scalar operators: 1 to 7 s of a 37 to 43 s first
    compile on a slow 2-core machine. The answer is the same (None) either way (tests/physics/test_compiled.py
    compares the two on every operator). Returns whether numba has the rule this expects.
    """
    from numba.core import types
    from numba.core.typing import npydecl

    def arrays_first(original):
        def generic(self, args, kws):
            if not any(isinstance(arg, types.ArrayCompatible) for arg in args):
                return None
            return original(self, args, kws)

        return generic

    return _replace(getattr(npydecl, "NumpyRulesArrayOperator", None), "generic", arrays_first)


SCALAR_OPERATORS_QUICK = False if DISABLED else _scalar_operators_skip_the_array_rules()
"""Whether numba's typing of scalar operators skips its array rules (see _scalar_operators_skip_the_array_rules)."""


def _variables_listed_by_type() -> bool:
    """Make numba's listing of the variables an IR statement uses (``Inst._rec_list_vars``) decide by the value's
    type, once per type, instead of four ``isinstance`` tests on every value it walks.

    numba lists them again and again while it analyses each function (use-def chains, SSA, the deletion of dead
    variables): some 370,000 walks for the model, 9% of its first compile's time under a profiler. The lists are
    the same, in the same order (tests/physics/test_compiled.py compares the two on every statement of a function).
    Returns whether numba has the helper this expects.
    """
    from numba.core import ir

    Var, Inst = ir.Var, ir.Inst
    # What each type of value is: 0 a variable, 1 an instruction, 2 a list or tuple, 3 a dict, 4 none of them
    # (a location, a name, a number, a global's value ...), decided by numba's own tests the first time it is seen.
    kinds: dict[type, int] = {}

    def kind_of_alone(val) -> int:
        return (0 if isinstance(val, Var) else 1 if isinstance(val, Inst) else 2 if isinstance(val, (list, tuple))
                else 3 if isinstance(val, dict) else 4)

    def kind_of(cls: type, val) -> int:
        kind = kinds[cls] = kind_of_alone(val)
        return kind

    def walk(val, out: list) -> None:
        cls = type(val)
        kind = kinds.get(cls)
        if kind is None:
            if val.__class__ is not cls:  # a proxy (weakref.proxy, a mock): isinstance answers for what it stands for
                kind = kind_of_alone(val)
            else:
                kind = kind_of(cls, val)
        if kind == 4:
            return
        if kind == 0:
            out.append(val)
        elif kind == 1:
            out.extend(val.list_vars())
        else:
            for v in (val if kind == 2 else val.values()):
                walk(v, out)

    def by_type(original):
        def _rec_list_vars(self, val):
            out: list = []
            walk(val, out)
            return out

        return _rec_list_vars

    return _replace(ir.Inst, "_rec_list_vars", by_type)


VARIABLES_BY_TYPE = False if DISABLED else _variables_listed_by_type()
"""Whether numba lists an IR statement's variables by their type (see _variables_listed_by_type)."""


def _record_types_spelled_once() -> bool:
    """Make numba spell out a record type (``Record([('engine_peak_torque', {'type': float64, ...``) once, not on
    every pass of every function that takes one.

    numba describes each pass it runs to its event listeners with the function's argument types as text, and a
    record type's text lists all of its fields: the model's parameter record has 136. That is about 3,800
    spellings for the model, 2% of its first compile. A record type is immutable, and equal ones are spelled
    alike, so the text is kept per type. Returns whether numba has the record type this expects.
    """
    from numba.core.types import npytypes

    spelled: dict = {}

    def once(original):
        def __repr__(self):
            text = spelled.get(self)
            if text is None:
                text = spelled[self] = original(self)
            return text

        return __repr__

    return _replace(getattr(npytypes, "Record", None), "__repr__", once)


RECORDS_SPELLED_ONCE = False if DISABLED else _record_types_spelled_once()
"""Whether numba spells out each record type once (see _record_types_spelled_once)."""


def _scalar_calls_typed_once() -> bool:
    """Make numba type a built-in function or operator applied to the same plain scalar types (``a * b`` of two
    float64s, ``min`` of an int64 and a float64, ``math.sqrt``) once per typing context, not at every place it
    is written.

    numba's ``Function.get_call_type`` tries the function's templates in turn at every call it types: about 10,700
    such calls in the model, nearly all of them repeats of 127 (function, argument types) pairs, 8% of the first
    compile (1.3 of 16 s of CPU). The answer for plain scalars (floats, integers, booleans that are not literals, no
    keywords) depends on nothing else but the typing context and its target, so the signature found first is given
    again. numba also notes, on the function type, which implementation lowers a signature (``_impl_keys``, keyed by
    the signature's argument types, not the call's): a call of other types that converts to the same signature
    through another template overwrites that note, so a kept answer puts its own note back each time it is given.
    Anything else (arrays, records, literals, keywords, a failure) is typed by numba as before.
    tests/physics/test_compiled.py compares the answers with numba's own for every pair the model's maths types,
    and a function of two templates whose notes collide. Returns whether numba has the method this expects.
    """
    from numba.core import types
    from numba.core.target_extension import get_local_target

    plain = (types.Float, types.Integer, types.Boolean)
    literal = types.Literal

    def once(original):
        typed: dict = {}

        def get_call_type(self, context, args, kws):
            impls = getattr(self, "_impl_keys", None)  # (a numba without the note: typed as numba types it)
            if kws or type(self) is not types.Function or type(impls) is not dict:
                return original(self, context, args, kws)
            for arg in args:
                if not isinstance(arg, plain) or isinstance(arg, literal):
                    return original(self, context, args, kws)
            key = (self, context, get_local_target(context), tuple(args))
            kept = typed.get(key)
            if kept is not None:
                sig, impl = kept
                impls[sig.args] = impl  # the implementation this answer names, whatever came between
                return sig
            sig = original(self, context, args, kws)  # raises where nothing matches, as before
            impl = impls.get(sig.args) if sig is not None else None
            if impl is not None:
                typed[key] = (sig, impl)
            return sig

        get_call_type.typed = typed
        return get_call_type

    return _replace(getattr(types, "Function", None) and types.functions.BaseFunction, "get_call_type", once)


SCALAR_CALLS_TYPED_ONCE = False if DISABLED else _scalar_calls_typed_once()
"""Whether numba types a built-in call of plain scalar types once (see _scalar_calls_typed_once)."""


def _machine_code_when_needed() -> bool:
    """Make numba emit a subsystem's machine code, and optimise its module as a whole, only when something needs them:
    the address of a function its module defines, its assembly, or its object code.

    numba finalises the library of every function it compiles: it links the library's callees into its module,
    optimises that whole module at O3 and emits machine code for it. A subsystem's machine code is never run (the
    kernel links its module in and inlines it, and a call from Python goes through a second dispatcher, see
    :class:`Subsystem`), and its module, holding its whole call tree, was optimised again inside each caller's and at
    last inside the kernel's. Here the library of a subsystem (compiled through :class:`_SubsystemCompiler`, or loaded
    from a subsystem's cache) keeps its module as its functions were optimised one by one, and is cached as that
    module's bitcode (numba's ``bitcode`` kind); the kernel, linking them all, optimises the whole once and emits its
    machine code. The model's bits are the same: without fast-math flags LLVM's optimisations keep every
    floating-point result, in whatever order they run (tests/physics/test_compiled.py compares compiled scripts with
    plain Python's bits).

    Every other library (numba's own, the kernel, any other compiled function) is finalised as numba does. A subsystem
    library is emitted at once where numba's linking of recursive calls is involved: its module calls a function not
    compiled yet (``.numba.unresolved$`` globals), or defines one that an emitted module waits for. An environment
    pointer numba sets for a function not emitted yet (``set_env``) is set when a module defining its global is emitted
    (the subsystem's own, or a caller's that linked it in). What numba shows of a subsystem (``inspect_llvm``,
    ``inspect_asm``) is its module optimised as a whole, as numba's own; other libraries never wait for the lock.
    Returns whether numba has the methods this expects (it changes nothing otherwise).
    """
    from llvmlite import binding as ll
    from numba.core import codegen
    from numba.core.compiler_lock import global_compiler_lock

    library, cpu, jit = (getattr(codegen, name, None) for name in ("JITCodeLibrary", "CPUCodeLibrary", "JITCPUCodegen"))
    needed = ((cpu, "finalize"), (cpu, "_optimize_final_module"), (cpu, "_finalize_final_module"),
              (cpu, "_finalize_dynamic_globals"), (cpu, "_verify_declare_only_symbols"), (cpu, "_get_compiled_object"),
              (cpu, "_unserialize"), (library, "get_pointer_to_function"), (library, "serialize_using_object_code"),
              (jit, "set_env"), (jit, "create_library"), (codegen, "RuntimeLinker"))
    if any(getattr(owner, name, None) is None for owner, name in needed):
        return False
    if getattr(library, "_machine_code_when_needed", False):
        return True
    optimise, final, address = cpu._optimize_final_module, cpu._finalize_final_module, library.get_pointer_to_function
    as_object, set_env, finalize_as_numba = library.serialize_using_object_code, jit.set_env, cpu.finalize
    llvm_str = library.get_llvm_str
    unserialize = cpu._unserialize.__func__
    prefix = codegen.RuntimeLinker.PREFIX
    pending: dict = {}  # environment name -> environment, for functions whose machine code is not emitted yet

    def deferred(self) -> bool:
        return getattr(self, "_deferred", False)

    def put_env(engine, name, env) -> bool:
        where = engine.get_global_value_address(name) if engine.is_symbol_defined(name) else 0
        if where:
            (ctypes.c_void_p * 1).from_address(where)[0] = ctypes.c_void_p(id(env))
        return bool(where)

    def recursive(self) -> bool:
        """Whether the module takes part in numba's linking of recursive calls (then it is emitted as numba does)."""
        module = self._final_module
        if any(gv.name.startswith(prefix) for gv in module.global_variables):
            return True
        waiting = self._codegen._rtlinker._unresolved
        return bool(waiting) and any(not fn.is_declaration and fn.name in waiting for fn in module.functions)

    def optimise_now(self) -> None:
        """The module optimised as a whole, if that was put off."""
        if getattr(self, "_unoptimised", False):
            self._unoptimised = False
            optimise(self)

    def emit_now(self) -> None:
        """numba's finalisation of the module, optimised as a whole first if that was put off."""
        self._unemitted = False
        self._dynamic_globals = []
        optimise_now(self)
        final(self)
        put_pending(self)

    def put_pending(self) -> None:
        """Set the environments kept for functions not emitted yet whose global this module, just emitted, defines (a
        caller that linked a subsystem in defines it too: numba's ``common`` linkage, one copy for all). Only this
        module's globals are looked at: no other can have become defined."""
        engine = self._codegen._engine
        defined = [gv.name for gv in self._final_module.global_variables if gv.name in pending]
        for name in defined:
            if put_env(engine, name, pending[name]):
                del pending[name]

    def emit(self) -> None:
        if not deferred(self):  # any other library: as numba does, without waiting for the compiler lock
            return
        with global_compiler_lock:
            if getattr(self, "_unemitted", False):
                emit_now(self)

    def _optimize_final_module(self):
        if deferred(self) and getattr(self, "_finalising", False):
            self._unoptimised = True  # optimised as a whole when its machine code is needed, or in its callers'
            return
        optimise(self)

    def _finalize_final_module(self):
        if not deferred(self) or getattr(self, "_compiled_object", None) is not None:
            final(self)
            if pending:
                put_pending(self)
            return
        if not getattr(self, "_finalising", False):  # loaded from cached bitcode
            self._unoptimised = True
        if recursive(self):
            emit_now(self)
            return
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True
        self._unemitted = True

    def finalize(self):
        self._finalising = True
        try:
            finalize_as_numba(self)
        finally:
            self._finalising = False

    def get_pointer_to_function(self, name):
        if deferred(self):
            with global_compiler_lock:
                self._ensure_finalized()
                if getattr(self, "_unemitted", False):
                    try:
                        defined = not self._final_module.get_function(name).is_declaration
                    except NameError:
                        defined = False
                    if not defined:  # numba's answer without emitting this module: another module's, or none
                        engine = self._codegen._engine
                        return engine.get_function_address(name) if engine.is_symbol_defined(name) else 0
                    emit_now(self)
        return address(self, name)

    def serialize_using_object_code(self):
        self._ensure_finalized()
        if getattr(self, "_unemitted", False):
            return (self.name, "bitcode", self._final_module.as_bitcode())
        return as_object(self)

    def _unserialize(cls, codegen_, state):
        name, kind, data = state
        if kind != "bitcode" or not getattr(_loading, "subsystem", False):
            return unserialize(cls, codegen_, state)
        self = codegen_.create_library(name)
        self._deferred = True
        self._final_module = ll.parse_bitcode(data)
        self._finalize_final_module()
        return self

    def get_llvm_str(self):
        if deferred(self):
            with global_compiler_lock:  # the IR numba shows: the module optimised as a whole
                self._ensure_finalized()
                optimise_now(self)
        return llvm_str(self)

    def put_or_keep_env(self, env_name, env):
        if not put_env(self._engine, env_name, env):
            pending[env_name] = env

    def emitting(method):
        @functools.wraps(method)
        def emitted_first(self, *args, **kwargs):
            emit(self)
            return method(self, *args, **kwargs)
        return emitted_first

    cpu.finalize = functools.wraps(finalize_as_numba)(finalize)
    library._optimize_final_module = functools.wraps(optimise)(_optimize_final_module)
    library._finalize_final_module = functools.wraps(final)(_finalize_final_module)
    library.get_pointer_to_function = functools.wraps(address)(get_pointer_to_function)
    library.serialize_using_object_code = functools.wraps(as_object)(serialize_using_object_code)
    library._unserialize = classmethod(functools.wraps(unserialize)(_unserialize))
    jit.set_env = functools.wraps(set_env)(put_or_keep_env)
    library.get_llvm_str = functools.wraps(llvm_str)(get_llvm_str)
    for name in ("get_asm_str", "get_function_cfg", "get_disasm_cfg", "_get_compiled_object"):
        if getattr(library, name, None) is not None:
            setattr(library, name, emitting(getattr(library, name)))
    library._machine_code_when_needed = True
    return True


_loading = threading.local()  # .subsystem: a subsystem's cache is being read (its bitcode is loaded without emitting)
MACHINE_CODE_WHEN_NEEDED = False if DISABLED else _machine_code_when_needed()
"""Whether numba emits a subsystem's machine code only when it is needed (see _machine_code_when_needed)."""


def source_key() -> str:
    """A digest of every source file of the model (and numba's version): compiled code is only reused for the same
    sources, whichever file changed (numba's own cache looks at a function's file alone, not at what it calls)."""
    global _source_digest
    if _source_digest is None:
        h = hashlib.sha256()
        for path in sorted(_PACKAGE.glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
        h.update(numba.__version__.encode())
        _source_digest = h.hexdigest()
    return _source_digest


_source_digest: str | None = None

if not DISABLED:
    from numba.core.caching import FunctionCache, IndexDataCacheFile

    class _SoundCacheFile(IndexDataCacheFile):
        """numba's index and data files of one function's cache, where a damaged file is a miss.

        numba writes a cache file to a temporary name and renames it, but does not sync it (here it is synced before
        the rename, :meth:`_open_for_write`; a file written by another program, or damaged on the disk, can still be
        bad): after a power loss the renamed file could be empty, or hold a part of its bytes or zeros, and numba's
        reading of it raised
        (``EOFError``, ``pickle.UnpicklingError``, and from garbage whatever unpickling its bytes raises: a
        ``ValueError``, a ``KeyError`` ...) through every command. Here a damaged index reads as an empty one and a
        damaged data file as a missing one: the function is compiled again and numba writes good files in their
        place (a damaged index is replaced by one that lists the new entry alone). It is said once per process
        (:func:`_say_damaged`). A file that cannot be read at all (``OSError``) is left to numba, as before.
        """

        @contextlib.contextmanager
        def _open_for_write(self, filepath):
            """numba's write to a temporary name and rename, with the file's bytes synced before the rename: after a
            power loss the cache file is the old one or the new one, whole (numba's own renamed unsynced bytes, and
            a damaged index cost every other entry it listed, each compiled again)."""
            with super()._open_for_write(filepath) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())

        def _load_index(self):
            try:
                return super()._load_index()
            except OSError:
                raise
            except Exception as exc:  # unpickling garbage raises nearly anything: it is all the same damage
                _say_damaged(self._index_path, exc)
                return {}

        def _load_data(self, name):
            try:
                return super()._load_data(name)
            except OSError:
                raise  # numba's load() takes a file gone since the index was read as a miss
            except Exception as exc:
                _say_damaged(self._data_path(name), exc)
                return None

    _damage_said = threading.Lock()  # held for good once the damage has been said

    def _say_damaged(path: str, exc: BaseException) -> None:
        """One line on stderr, once per process: a file of the compiled model's cache was damaged, and is rebuilt."""
        if not _damage_said.acquire(blocking=False):
            return
        stream = sys.stderr
        if stream is None:  # started with stderr closed: nothing to say it on (print would pick stdout)
            return
        try:
            print(f"carbench: the compiled model's cache was damaged ({path}: {type(exc).__name__}); "
                  "compiling it again and rewriting the cache", file=stream, flush=True)
        except (OSError, ValueError):  # a full or closed stderr only loses the message
            pass

    class _SoundCache(FunctionCache):
        """numba's function cache on :class:`_SoundCacheFile`: a damaged index or data file is a miss. Its files are
        numba's own (``<function>-<line>.pyXY.nbi``), or with ``_suffix`` after the function's part of the name."""

        _suffix = ""

        def __init__(self, py_func):
            super().__init__(py_func)
            self._cache_file = _SoundCacheFile(cache_path=self._cache_path,
                                               filename_base=self._impl.filename_base + self._suffix,
                                               source_stamp=self._impl.locator.get_source_stamp())

    def load_without_refresh(cache, sig, target_context):
        """``cache.load_overload(sig, target_context)`` as numba's own, without refreshing the context first.

        numba's refresh imports and registers every implementation it has for typing and lowering new code (linear
        algebra, random numbers, typed containers, and SciPy's BLAS where SciPy is installed): 0.45 s of a process's
        first batch, and nothing compiled and loaded from the cache calls them. Only numba's runtime, which the
        kernel's arrays use, is started. Every compile refreshes the context itself (numba.core.compiler's
        CompilerBase), a miss's included."""
        guard = getattr(cache, "_guard_against_spurious_io_errors", None)
        load = getattr(cache, "_load_overload", None)
        try:
            from numba.core.runtime import rtsys

            start = rtsys.initialize
        except (ImportError, AttributeError):
            start = None
        if guard is None or load is None or start is None:  # a numba without them: its own way, with the refresh
            return FunctionCache.load_overload(cache, sig, target_context)
        start(target_context)
        with guard():
            return load(sig, target_context)
        return None  # the guard swallowed a spurious I/O error: a miss

    class _QuickLoad(_SoundCache):
        def load_overload(self, sig, target_context):
            return load_without_refresh(self, sig, target_context)

    def quick_load(dispatcher) -> None:
        """Give a ``cache=True`` dispatcher numba's cache loaded without the context's refresh
        (:func:`load_without_refresh`): the functions every batch calls from Python (physics.kernel.new_args)."""
        dispatcher._cache = _QuickLoad(dispatcher.py_func)

    class ModelCache(_SoundCache):
        """numba's function cache, keyed also on the model's sources (and whatever else ``key`` says); a damaged
        cache file is a miss (:class:`_SoundCacheFile`)."""

        def __init__(self, py_func, key: str):
            super().__init__(py_func)
            self._model_key = key

        def _index_key(self, sig, codegen):
            base = super()._index_key(sig, codegen)
            return base[:2] + (base[2] + (self._model_key,),)

    class PythonCallCache(ModelCache):
        """The cache of a :class:`Subsystem`'s dispatcher for calls from Python, in index and data files of its own
        (``...-python.nbi``): numba picks a data file's number from the index without a lock between processes, and
        a Python call handed the kernel's overload, which has no entry wrapper, would crash."""

        _suffix = "-python"

    class SubsystemCache(ModelCache):
        """A :class:`Subsystem`'s cache: a library it loads from bitcode is a subsystem's, not emitted until needed
        (see _machine_code_when_needed)."""

        def load_overload(self, sig, target_context):
            _loading.subsystem = True
            try:
                return super().load_overload(sig, target_context)
            finally:
                _loading.subsystem = False

    from numba.core.compiler import Compiler, DefaultPassBuilder
    from numba.core.compiler_machinery import LoweringPass, register_pass
    from numba.core.typed_passes import NativeLowering

    @register_pass(mutates_CFG=False, analysis_only=False)
    class _SubsystemLibrary(LoweringPass):
        """Make the library a subsystem is lowered into (numba's lowering makes an ordinary one when none is made),
        marked as a subsystem's: its machine code is emitted only when needed (see _machine_code_when_needed)."""

        _name = "carbench_subsystem_library"

        def __init__(self):
            LoweringPass.__init__(self)

        def run_pass(self, state):
            if state.library is None:
                state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
                state.library.enable_object_caching()
                state.library._deferred = MACHINE_CODE_WHEN_NEEDED
                if getattr(state.func_id.func, "_always_inline", False):
                    _inline_always(state.library)
            return False

    def _inline_always(library) -> None:
        """Mark the function lowered into ``library`` for LLVM to inline wherever it is called (``alwaysinline``):
        LLVM's own inliner keeps a large function called from one place as a call."""
        add = library.add_ir_module

        def add_marked(ir_module):
            for fn in ir_module.functions:
                # numba marks every function ``noinline`` for full debug information (NUMBA_DEBUGINFO=1, and
                # NUMBA_ENABLE_PROFILING=1 turns it on): the debugger's wish wins there, and the bits are the same.
                if not fn.is_declaration and "noinline" not in fn.attributes and "optnone" not in fn.attributes:
                    fn.attributes.add("alwaysinline")
            add(ir_module)

        library.add_ir_module = add_marked

    class _SubsystemCompiler(Compiler):
        """numba's nopython pipeline with :class:`_SubsystemLibrary` just before the lowering."""

        def define_pipelines(self):
            pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
            where = [k for k, (pss, _) in enumerate(pipeline.passes) if pss is NativeLowering]
            if where:
                pipeline.passes.insert(where[0], (_SubsystemLibrary, "a subsystem's library"))
                pipeline.finalize()
            return [pipeline]


def scalar(fn=None, cache: bool = True, inline: bool = False):
    """Compile a subsystem function: scalar floats in and out, no loops, numpy's error model.

    Arrays may come in (the kernel's scratch lanes, a road's rows) but none is made or returned: a subsystem is
    compiled without numba's reference counting, which otherwise counted every array argument in and out with two
    atomic operations a call (9% of a single-track frame's samples under perf).

    Cached on disk under the digest of every source file of the model (:func:`source_key`), so a change to any of
    them is seen: a model variant (physics.kernel.build_kernel) then compiles only the functions it changes, the
    others come from the cache. Variants' own copies are compiled with ``cache=False`` (their globals differ from
    the module's). numpy's error model: a division by zero gives inf or nan (caught by the kernel's guard) instead
    of raising inside compiled code.

    The dispatcher is a :class:`Subsystem`: compiled for the kernel without the entry wrappers a call from Python
    needs, which a call from Python gets from a second dispatcher.

    ``@scalar(inline=True)`` marks the function for LLVM to inline wherever it is called (``alwaysinline``), the
    same bits: LLVM's inliner leaves a large function as a call even where it is called from one place, and the
    kernel's hot frames lost a quarter of their time to such calls (README, "The hot subsystems inlined").
    """
    if fn is None:  # @scalar(inline=True)
        return functools.partial(scalar, cache=cache, inline=inline)
    if DISABLED:
        return fn
    if inline:
        fn._always_inline = True
    dispatcher = Subsystem(fn, targetoptions=dict(_CALLEE_OPTIONS), pipeline_class=_SubsystemCompiler)
    if cache:
        _cache(dispatcher, fn, source_key() + ":callee", SubsystemCache)
    return dispatcher


def _cache(dispatcher, fn, key: str, kind=None) -> None:
    try:
        dispatcher._cache = (kind or ModelCache)(fn, key)
    except RuntimeError:  # generated from text (physics.corners' writers): nowhere to cache it, compiled each time
        pass


if not DISABLED:
    from numba.core.cpu import CPUTargetOptions
    from numba.core.registry import CPUDispatcher

    _CALLEE_OPTIONS = {"nopython": True, "error_model": "numpy", "no_cpython_wrapper": True,
                       "no_cfunc_wrapper": True}
    if hasattr(CPUTargetOptions, "_nrt"):  # numba's switch for its reference counts (a numba without it counts)
        _CALLEE_OPTIONS["_nrt"] = False

    def _counted(cres) -> bool:
        """Whether a compiled function's return value holds anything numba counts references of: an array, or an
        array inside a tuple or an optional value (numba's data model says, for every kind of value)."""
        return cres.target_context.data_model_manager[cres.signature.return_type].contains_nrt_meminfo()

    class Subsystem(CPUDispatcher):
        """A subsystem function as compiled code calls it: compiled without numba's two entry wrappers (the one Python
        calls through and the C-callable one), which compiled callers never use and which took about a third of the
        model's first compile (physics.kernel.COMPILE_SECONDS); and without numba's reference counts (see
        :func:`scalar`), so that it returns no array (:meth:`add_overload`).

        A call from Python (a test, a plot of a curve) goes to a second, ordinary dispatcher of the same function,
        made at the first such call and cached apart; its own calls reach the other subsystems through this class.
        """

        _python = None

        def add_overload(self, cres):
            """Refuse an overload that returns an array (or a tuple or an optional value holding one). Compiled without
            reference counts, the subsystem would hand its caller an array without the reference the caller later
            gives back, and the memory would be freed under it. (Making an array fails to compile without reference
            counts already.)"""
            if _counted(cres):
                raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} returns "
                                f"{cres.signature.return_type}: a subsystem (physics.jit.scalar) returns no array")
            super().add_overload(cres)

        def get_call_template(self, args, kws):
            """Compiled for the types of the arguments, not their constant values: a lane number 0 to 3 makes one
            specialisation, not four (the bits are the same: the kernel inlines every call and folds constants)."""
            return super().get_call_template(tuple(numba.types.unliteral(a) for a in args),
                                             {k: numba.types.unliteral(v) for k, v in kws.items()})

        def __call__(self, *args, **kwargs):
            if self._python is None:
                python = numba.njit(error_model="numpy")(self.py_func)
                if self._cache is not None and hasattr(self._cache, "_model_key"):
                    _cache(python, self.py_func, source_key() + ":python", PythonCallCache)
                self._python = python
            return self._python(*args, **kwargs)


def max_threads() -> int:
    """The most threads a batch may use: NUMBA_NUM_THREADS (the number of cores by default)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def set_threads(n: int) -> int:
    """Use ``n`` threads (1 .. NUMBA_NUM_THREADS) for batches from now on, in every thread of the process; returns n.
    """
    global _threads
    top = max_threads()
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= top:
        raise ValueError(f"threads = {n!r}: must be a whole number from 1 to {top} (NUMBA_NUM_THREADS)")
    _threads = n
    return n


_threads: int | None = None  # all of NUMBA_NUM_THREADS until set_threads


def threads() -> int:
    """The number of threads a batch's cars are shared among now (physics.pool); 1 under NUMBA_DISABLE_JIT."""
    if DISABLED:
        return 1
    return max_threads() if _threads is None else _threads
