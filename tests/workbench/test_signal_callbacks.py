"""Where a signal's exception would be swallowed, the handler holds it and sends it again (workbench.signals): in
ctypes callbacks, weak references' callbacks and finalisers. A SIGTERM that landed in a WeakValueDictionary's remove
callback during a cold compile printed "Exception ignored in ..." and the run went on to its end."""

from __future__ import annotations

import gc
import sys
import weakref

from workbench.signals import _in_callback


class _Thing:
    pass


def test_a_weak_references_callback_is_a_place_a_signal_waits_out():
    seen = []
    thing = _Thing()
    weakref.finalize(thing, lambda: seen.append(_in_callback(sys._getframe())))
    del thing
    gc.collect()
    assert seen == [True]

    values = weakref.WeakValueDictionary()
    other = _Thing()
    values["a"] = other
    marks = []

    def watch(frame, event, arg):  # the dictionary's own remove callback, seen from inside it
        if event == "call" and frame.f_code.co_name == "remove" and frame.f_globals.get("__name__") == "weakref":
            marks.append(_in_callback(frame))

    sys.setprofile(watch)
    try:
        del other
        gc.collect()
    finally:
        sys.setprofile(None)
    assert marks and all(marks)


def test_a_finaliser_is_a_place_a_signal_waits_out_and_plain_code_is_not():
    seen = []

    class Finalised:
        def __del__(self):
            seen.append(_in_callback(sys._getframe()))

    Finalised()
    gc.collect()
    assert seen == [True]
    assert _in_callback(sys._getframe()) is False


def test_any_weak_references_callback_is_a_place_a_signal_waits_out():
    """numba's own (``numba.core.types.abstract._on_type_disposal``, called with the dead reference): a SIGTERM landed
    there during a cold compile under load, "Exception ignored in ...", and the replay ran on and exited 0."""
    seen = []

    def disposal(wr, _pop=dict().pop):  # as numba's, and where the handler's frame would be
        seen.append(_in_callback(sys._getframe()))
        _pop(wr, None)

    thing = _Thing()
    ref = weakref.ref(thing, disposal)
    del thing
    gc.collect()
    assert seen == [True] and ref() is None
    frames = []

    def plain(value):  # a function whose first argument is a live weak reference is not a callback
        frames.append(_in_callback(sys._getframe()))

    other = _Thing()
    plain(weakref.ref(other))
    assert frames == [False]


def test_a_bound_method_or_a_catch_all_as_a_weak_references_callback_is_one_too():
    import functools

    seen = []

    class Owner:
        def on_dead(self, wr):
            seen.append(("method", _in_callback(sys._getframe())))

    def catch_all(*args):
        seen.append(("*args", _in_callback(sys._getframe())))

    def tagged(tag, wr):
        seen.append((tag, _in_callback(sys._getframe())))

    owner = Owner()
    things = [_Thing(), _Thing(), _Thing()]
    refs = [weakref.ref(things[0], owner.on_dead), weakref.ref(things[1], catch_all),
            weakref.ref(things[2], functools.partial(tagged, "partial"))]
    del things
    gc.collect()
    assert sorted(seen) == [("*args", True), ("method", True), ("partial", True)] and all(r() is None for r in refs)
