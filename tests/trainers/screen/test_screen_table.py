"""Inputs of the screen: parsing, binarisation at the median (high means >= median) and the 2x2 table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trainers.screen import Cells, ScreenInputError, binarise, parse_confidence, parse_correct, screen
from trainers.screen.table import parse_threshold


def test_cells_count_each_quadrant_by_hand():
    correct = np.array([True, True, False, True, False, False, True])
    high = np.array([True, False, True, True, False, True, False])
    # a: correct&high = items 0,3 ; b: wrong&high = 2,5 ; c: correct&low = 1,6 ; d: wrong&low = 4
    assert Cells.from_arrays(correct, high) == Cells(a=2, b=2, c=2, d=1)


@pytest.mark.parametrize("values, expected", [
    ([True, False, True], [True, False, True]),
    (["True", "False", "true"], [True, False, True]),
    ([1, 0, 1], [True, False, True]),
    (["1", "0", "yes"], [True, False, True]),
    (np.array([1.0, 0.0, 1.0]), [True, False, True]),
])
def test_parse_correct_accepts_bools_01_and_strings(values, expected):
    ok, valid = parse_correct(values)
    assert ok.tolist() == expected and valid.all()


def test_parse_correct_rejects_unknown_label_naming_it():
    with pytest.raises(ScreenInputError, match="'maybe'"):
        parse_correct(["True", "maybe"])
    ok, valid = parse_correct(["True", "maybe", None], drop_unparseable=True)
    assert valid.tolist() == [True, False, False]


@pytest.mark.parametrize("values, fmt, expected", [
    (["KEEP", "WITHDRAW", "keep"], "binary", [1.0, 0.0, 1.0]),
    (["BET", "NO BET", "no_bet"], "binary", [1.0, 0.0, 0.0]),
    ([True, False], "binary", [1.0, 0.0]),
    ([0.2, 0.9, 0.5], "unit", [0.2, 0.9, 0.5]),
    ([20, 90, 100], "percent", [0.2, 0.9, 1.0]),
    (["20", "90", "100"], "percent", [0.2, 0.9, 1.0]),
])
def test_parse_confidence_formats(values, fmt, expected):
    pc = parse_confidence(values)
    assert pc.format == fmt
    np.testing.assert_allclose(pc.values, expected)


def test_parse_confidence_errors_name_the_value():
    with pytest.raises(ScreenInputError, match="'MAYBE'"):
        parse_confidence(["KEEP", "MAYBE"])
    with pytest.raises(ScreenInputError, match="150"):
        parse_confidence([50, 150])
    with pytest.raises(ScreenInputError, match="-3"):
        parse_confidence([50, -3])
    with pytest.raises(ScreenInputError, match="mixes words"):
        parse_confidence(["KEEP", "0.7"])


def test_missing_values_are_dropped_and_counted():
    res = screen([True, False, None, True, np.nan] * 30, [90, 20, 50, float("nan"), 70] * 30)
    # row 2 (correct None), row 3 (confidence NaN), row 4 (correct NaN) are dropped in every block of 5
    assert res.n == 60 and res.n_dropped == 90
    assert any("90 rows dropped" in r for r in res.reasons)


def test_binarise_median_convention_high_means_at_or_above():
    high, thr = binarise([0.1, 0.5, 0.5, 0.9])
    assert thr == 0.5
    assert high.tolist() == [False, True, True, True]


def test_binarise_fixed_threshold_and_percent_threshold():
    assert binarise([0.3, 0.7, 0.8], 0.75)[0].tolist() == [False, False, True]
    assert parse_threshold("75") == 0.75 and parse_threshold(70) == 0.7 and parse_threshold("0.6") == 0.6
    with pytest.raises(ScreenInputError, match="threshold"):
        parse_threshold("high")


def test_fixed_threshold_on_percent_data_in_either_unit():
    ok = [True, False] * 50
    conf = [90, 60] * 50
    a = screen(ok, conf, threshold=0.75)
    b = screen(ok, conf, threshold="75")
    assert a.cells == b.cells == Cells(a=50, b=0, c=0, d=50)
    assert a.threshold_rule == "fixed" and a.threshold == 0.75


def test_all_equal_confidence_is_all_high_under_the_median_rule():
    # the median of a constant signal is that constant; high means >= median: every item is high
    res = screen([True, False, True, False] * 25, [100] * 100)
    assert res.cells == Cells(a=50, b=50, c=0, d=0)


def test_scale_detected_on_the_whole_column_not_per_group():
    df = pd.DataFrame({"ok": [True, False] * 40, "conf": [1] * 40 + [90, 30] * 20, "m": ["a"] * 40 + ["b"] * 40})
    from trainers.screen import screen_groups

    res = screen_groups(df, "ok", "conf", "m")
    assert all(r.confidence_format == "percent" for r in res)


def test_lengths_must_match():
    with pytest.raises(ScreenInputError, match="3 items but confidence has 2"):
        screen([True, False, True], [0.5, 0.6])


def test_pandas_nullable_columns_with_na_are_dropped():
    df = pd.DataFrame({"ok": pd.array([True, False, None] * 20, dtype="boolean"),
                       "conf": pd.array([90, 30, 50] * 20, dtype="Int64")})
    res = screen(df["ok"], df["conf"])
    assert res.n == 40 and res.n_dropped == 20
