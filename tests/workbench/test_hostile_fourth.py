"""A fourth look at hostile input: each case printed a false or misleading line (or a traceback) before its fix.

In-process calls and short scripts only (the suite is at the edge of its time budget).
"""

from __future__ import annotations

import pytest
from cli_calls import run

# -- --max-memory: every malformed size says what is wrong with it ---------------------------------------------------

NOT_A_SIZE = "give a number of bytes, or one with K, M, G, T (e.g. 2G, 512M)"


@pytest.mark.parametrize("typed, said", [
    ("nanG", "'nanG': 'nan' is not a number; " + NOT_A_SIZE),  # was: unknown unit 'nang'
    ("NaN", "'NaN': 'nan' is not a number; " + NOT_A_SIZE),  # was: unknown unit 'nan'
    ("infG", "'infG': 'inf' is not a finite number; " + NOT_A_SIZE),  # was: unknown unit 'infg'
    ("-infinityGiB", "'-infinityGiB': '-infinity' is not a finite number; " + NOT_A_SIZE),
    ("nan1G", "'nan1G': 'nan1' is not a number; " + NOT_A_SIZE),
    ("1.5.2G", "'1.5.2G': '1.5.2' is not a number; " + NOT_A_SIZE),
    ("", "'': an empty size; " + NOT_A_SIZE),  # was: '' is not a size
    ("G", "'G': no number; " + NOT_A_SIZE),
    ("-1G", "'-1G': the size must be positive"),
    ("0G", "'0G': the size must be positive"),
    ("0.1", "'0.1': less than one byte"),  # was taken: a budget of 0 B, every replay refused as over it
    ("1e-300G", "'1e-300G': less than one byte"),
    ("2X", "'2X': unknown unit 'x'; use a number of bytes or K, M, G, T (KiB, MiB, GiB ...)"),
])
def test_a_malformed_max_memory_says_what_is_wrong(typed, said, capsys):
    code, out, err = run(["replay", "braking_stop", f"--max-memory={typed}"], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: argument --max-memory: {said}"], err


@pytest.mark.parametrize("argv, said", [
    # argparse took the value for an option and said only "expected one argument"
    (["replay", "braking_stop", "--max-memory", "-1G"], "argument --max-memory: '-1G': the size must be positive"),
    (["replay", "braking_stop", "--max-memory", "-infG"],
     "argument --max-memory: '-infG': '-inf' is not a finite number; " + NOT_A_SIZE),
    (["hunt", "--cars", "-1e3"], "argument --cars: invalid whole number value: '-1e3'"),
    (["replay", "braking_stop", "--dt", "-inf"], "argument --dt: '-inf' was read as an option; give it as --dt=-inf"),
    # an option indeed after the option: argparse's words are true
    (["replay", "braking_stop", "--max-memory", "--json"], "argument --max-memory: expected one argument"),
])
def test_a_value_that_starts_with_a_dash_is_judged_as_a_value(argv, said, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"carbench: {said}"], err
