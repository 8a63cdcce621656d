"""Bounded work of the claim checkers on adversarial steps (one input per pattern family found by fuzzing).

Each checker of :data:`rewards.checks.claims.CHECKERS` and :func:`rewards.scoring.score.score_trace` must return, without raising,
well within a generous bound (a bound on work, not a benchmark) on the worst inputs found: runs of blanks after a
keyword (regexes that backtracked quadratically or cubically over them), trailing blanks in a display line, and
composite "primes" without a small factor (trial division up to 10**5 per claim).
"""

from __future__ import annotations

import time

import pytest

from rewards.checks.arithmetic import EquationCheck
from rewards.checks.claims import CHECKERS, checker_name
from rewards.scoring.score import score_trace

BOUND_S = 2.0
L = 4000
# composites near 10**12 whose least prime factor is above 10**5 (999983 * 999979, ...)
_SEMIPRIMES = [999983 * q for q in (999979, 999961, 999959, 999953, 999931, 999917, 999907, 999883)]

CASES = {
    # congruences: "mod" + a run of blanks (wmod/pmod atoms, the line-continuation join)
    "mod_then_blanks": "mod \\\\" + " " * (L - 6),
    "mod_then_newlines": "mod" + "\n" * (L - 3),
    "pmod_then_tabs": "\\equiv 3 \\pmod 7 \\\\" + " \t" * ((L - 30) // 2) + "x",
    "paren_mod_then_blanks": "(mod" + " " * (L - 6) + "x",
    "quad_then_blanks": "x \\equiv 2 \\quad" + " " * (L - 20) + "x",
    "remainder_is_then_newlines": "the remainder when 10 is divided by 7 is" + "\n" * (L - 50) + "x",
    # continuations: blanks between two inline spans, a display line with inner blanks, "\\\\" + blanks
    "says_equal_gap": "$a+b$" + " " * (L - 20) + "x$c$ simplifies",
    "display_line_blanks": "\\[ 1 \\] \\[ = 1" + " " * 2900 + "2 \\]",
    "continuation_hint_blanks": "= \\\\" + " " * (L - 10) + "x",
    # assignments: "x =" + blanks
    "assignment_hint_blanks": "x =" + " " * (L - 10) + "y",
    # numberfacts: false primality claims about composites without a small factor; digit claims + blanks
    "composite_prime_claims": " ".join(f"{n} is prime." for n in _SEMIPRIMES * 20)[:L],
    "units_digit_is_then_blanks": "the units digit of 7^{3} is" + " " * (L - 40) + "x",
    "divisible_list_blanks": "12 is divisible by 2" + " " * (L - 30) + "x",
    # substitution: a call with a run of blanks inside
    "function_call_blanks": "Let $f(x) = x+1$. " + " ".join("$f(" + " " * 100 + "y) = 3$" for _ in range(35)),
    # general families: nested braces, relation runs, big exponents and factorials, "=" chains
    "nested_frac": "$" + "\\frac{" * 500 + "1" + "}{2}" * 500 + " = 3$",
    "equiv_run": "$" + "3 \\equiv " * 440 + "$",
    "big_powers": " ".join(["$2^{999999999} = 5$", "$10^{10^{10}} \\equiv 3 \\pmod{7}$", "$99999! = 7$",
                            "the last digit of $7^{99999999999}$ is 3"] * 30),
    "continued_displays": "\\[ x^2 + 1 \\]" + " \\[ = x^2 + 1 \\]" * 230,
}


def _checked(name: str, fn, *args, **kwargs):
    start = time.process_time()
    result = fn(*args, **kwargs)
    elapsed = time.process_time() - start
    assert elapsed < BOUND_S, f"{name} took {elapsed:.2f} s"
    return result


def _well_formed(found, n_steps: int) -> None:
    assert isinstance(found, list)
    for item in found:
        assert isinstance(item, tuple) and len(item) == 2
        i, check = item
        assert isinstance(i, int) and 0 <= i < n_steps
        assert isinstance(check, EquationCheck) and check.ok is False


@pytest.mark.parametrize("family", sorted(CASES))
def test_checkers_bounded_on_one_step(family):
    step = CASES[family][:L]
    problem = "Let $f(x) = x^2+1$. Find the remainder when $2^{100}$ is divided by 7."
    for checker in CHECKERS:
        found = _checked(f"{checker_name(checker)} on {family}", checker, [step], problem)
        _well_formed(found, 1)
    result = _checked(f"score_trace on {family}", score_trace, problem, steps=[step])
    assert result.status in ("accept", "review", "abstain")


@pytest.mark.parametrize("family", ["mod_then_newlines", "composite_prime_claims", "display_line_blanks",
                                    "assignment_hint_blanks"])
def test_checkers_bounded_on_a_whole_trace(family):
    text = CASES[family][:L]
    for steps in ([text] * 8, [text[:160]] * 200):
        for checker in CHECKERS:
            _well_formed(_checked(f"{checker_name(checker)} on {family}", checker, steps, ""), len(steps))
    _checked(f"score_trace on {family}", score_trace, "Problem.", "\n\n".join([text[:1900]] * 16) + "\n#### 5")
