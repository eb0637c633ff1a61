"""The carbench pytest plugin leaves carbench's own modules out of pytest's assertion rewriting (a test's asserts are
rewritten as before)."""

import sys

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook

import physics.kernel
import workbench.runs.sweep


@pytest.mark.skipif("config.getoption('assertmode') != 'rewrite'", reason="asserts rewritten in no module")
def test_the_model_and_the_workbench_are_imported_as_they_are_and_tests_rewritten(pytestconfig):
    marked = pytestconfig.pluginmanager.rewrite_hook._must_rewrite
    assert "physics" not in marked and "workbench" not in marked
    for module in (physics.kernel, workbench.runs.sweep):
        assert not isinstance(module.__loader__, AssertionRewritingHook), module.__name__
    assert isinstance(sys.modules[__name__].__loader__, AssertionRewritingHook)  # this test file's asserts are
