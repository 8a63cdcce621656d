"""rewards.parsing.values.format_value: the one value formatter (its styles, and what each caller relies on)."""

from __future__ import annotations

import random
from fractions import Fraction

from rewards.checks.arithmetic import Value
from rewards.parsing.values import format_value


def test_integers_are_written_plainly_in_every_style():
    for style in ({}, {"places": 4}, {"rounded": True}, {"rounded": True, "max_len": 3}):
        assert format_value(Fraction(-1200), **style) == "-1200"
        assert format_value(12, **style) == "12"


def test_exact_decimals_are_exact_and_round_trip():
    rng = random.Random(0)
    for _ in range(2000):
        q = Fraction(rng.randint(-10 ** 12, 10 ** 12), rng.choice([2, 4, 5, 8, 25, 1000, 3, 7, 4096]))
        text = format_value(q, places=4)
        assert Fraction(text) == q  # a decimal or p/q, never an approximation
        assert ("/" in text) == ((q * 10 ** 4).denominator != 1)
    assert format_value(Fraction(601597, 25), places=12) == "24063.88"  # no float round trip to lose it
    assert format_value(Fraction(-7, 4), places=1) == "-7/4"


def test_rounded_is_six_significant_digits_unless_too_long():
    assert format_value(Fraction(1, 3), rounded=True) == "0.333333"
    assert format_value(Fraction(10 ** 7 + 1, 2), rounded=True) == "5e+06"
    assert format_value(Fraction(-2469135, 2), rounded=True) == "-1.23457e+06"  # 12 characters
    assert format_value(Fraction(-2469135, 2), rounded=True, max_len=11) == "-2469135/2"
    assert format_value(Fraction(10 ** 400 + 1, 2), rounded=True).endswith("/2")  # beyond a float: exact


def test_floats_values_and_none():
    assert format_value(2 ** 0.5) == "1.41421" and format_value(2 ** 0.5, digits=10) == "1.414213562"
    assert format_value(Value(Fraction(5, 2), 2.5, True)) == "5/2"
    assert format_value(Value(None, 2 ** 0.5, False)) == "1.41421"
    assert format_value(None) is None and format_value(None, missing="?") == "?"
