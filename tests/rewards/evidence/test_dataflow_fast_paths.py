"""The dataflow's fast paths (rewards/evidence/), each against the reading it replaces.

Every test runs the fast path and the slow reading (the code it replaced, or the general path with the fast one
turned off) over real GSM8K / MATH-500 text and fuzzed strings, and requires the same result; each also checks that
the fast path ran on many inputs, so that the comparison is not empty. Lookups by int key instead of by
``Fraction`` (the constant sets' keyed twins, the problem's numbers, unit conversions) must hold the same members.
"""

from __future__ import annotations

import pickle
import random
import re
from fractions import Fraction

import pytest

from gold_texts import gold_rows

from rewards.checks.equations import step_equations
from rewards.parsing.trace import parse_trace
import rewards.evidence as E
from rewards.evidence import equation_derivations, lexicon, quantities


def _rows(limit: int = 300) -> list[tuple[str, str]]:
    """(problem, solution) pairs: GSM8K train and MATH-500."""
    return list(gold_rows(limit, limit // 2))


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, str]]:
    return _rows()


def _fuzzed(alphabet: list[str], count: int, seed: int, longest: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(count)]


# ------------------------------------------------------------------------------ the "and a half" gate

_HALF_PIECES = ["and", " and ", "a", " a ", "one", " one ", "half", "HALF", "quarter", "third", "Third", " ", "\n",
                "\t", "1/2", "1/4", "1/3", "3/4", "1/5", "4", "12", "2.5", "four", "twelve", "An", "x", "s", "-", "."]


def test_half_part_is_implied_by_every_and_a_half_match(rows):
    """A text where _AND_A_HALF matches has a _HALF_PART match too (so the gate never hides a match)."""
    texts = [t for problem, solution in rows for t in (problem, solution)]
    texts += _fuzzed(_HALF_PIECES, 20000, seed=10)
    texts += ["four and a half hours", "4 1/2 pounds", "an hour and a quarter", "two and one third", "3  \n 3/4",
              "TEN AND A HALF", "1 and\ta\nhalf", "and a halfway", "5 1/23"]
    matched = 0
    for text in texts:
        if lexicon._AND_A_HALF.search(text) is not None:
            matched += 1
            assert lexicon._HALF_PART.search(text) is not None, text
    assert matched > 200


def test_problem_numbers_with_and_without_the_half_gate(rows, monkeypatch):
    """problem_numbers with the _HALF_PART gate equals it with the gate always open (the code before it)."""
    problems = [problem for problem, _solution in rows]
    problems += ["She ran 4 and a half miles and 2 1/2 more.", "It took an hour and a quarter.",
                 "Tom is twelve and a half years old; his sister is 3 3/4 feet tall.", "Half of 10 and 1/5 of 20."]
    problems += [" ".join(words) for words in (_fuzzed(_HALF_PIECES, 3000, seed=11))]
    fast = [E.problem_numbers.__wrapped__(p) for p in problems]
    monkeypatch.setattr(lexicon, "_HALF_PART", re.compile(""))  # always matches: the full pattern runs wherever gated
    slow = [E.problem_numbers.__wrapped__(p) for p in problems]
    assert fast == slow
    assert sum(any(v.denominator in (2, 3, 4) and v > 1 for v in values) for values in fast) > 20


# ------------------------------------------------------------------------------ grounding asked by key

def _values(rng: random.Random, count: int) -> list[Fraction]:
    out = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.6:
            out.append(Fraction(rng.randint(-400, 5000)))
        elif kind < 0.9:
            out.append(Fraction(rng.randint(-50, 500), rng.randint(1, 120)))
        else:
            out.append(Fraction(rng.choice([0, 1, -1, 100, 3600, 12, 60, 7])))
    return out


def test_derived_and_converted_answer_alike_for_a_value_and_its_key():
    """_derived and _Converted give the same answer for a Fraction and for its _key (an int when whole)."""
    rng = random.Random(12)
    asked = 0
    for _round in range(80):
        pool = _values(rng, 12)
        known = {quantities.value_key(v) for v in pool}
        strict = set(list(known)[: len(known) // 2])
        pnums = frozenset(quantities.value_key(v) for v in pool[:6])
        units = frozenset(rng.sample([Fraction(n) for n in (2, 3, 7, 12, 24, 60, 100, 1000)] +
                                     [Fraction(1, 2), Fraction(3, 2), Fraction(-4)], 4))
        converted = lexicon.Converted(pnums, units)
        probes = _values(rng, 30) + [v * 100 for v in pool] + [v / 100 for v in pool] + [1 / v for v in pool if v] + \
            [-v for v in pool] + [v * u for v in pool for u in units] + [v / u for v in pool for u in units]
        for value in probes:
            key = quantities.value_key(value)
            for constants in (E.COMMON_CONSTANTS, E.BASIC_CONSTANTS):
                assert quantities.grounded(known, key, constants) == quantities.grounded(known, value, constants), (value, constants)
                assert quantities.grounded(strict, key, constants) == quantities.grounded(strict, value, constants), value
            assert (key in converted) == (value in converted), (value, units)
            asked += type(key) is int
    assert asked > 3000


# ------------------------------------------------------------------------------ what an equation derives

def _equations(rows) -> list:
    out = []
    for problem, solution in rows:
        for step in solution.splitlines():
            out.extend(step_equations(step))
    return out


def test_derivation_with_the_callers_roles_and_without(rows):
    """_derivation with the roles build_dataflow worked out equals it reading them itself; an equation neither
    verified nor refuted derives from its sides alone (what lets _unverified_derivation cache by sides)."""
    equations = _equations(rows)
    verified = unverified = 0
    for eq, check in equations:
        roles = equation_derivations.equation_roles(eq.sides, eq.values)
        own = equation_derivations.equation_derivation(eq, check)
        assert equation_derivations.equation_derivation(eq, check, roles) == own, eq.sides
        if check.ok is True:
            verified += own is not None
        elif check.ok is None:
            unverified += 1
            blank = tuple(None for _ in eq.values)
            assert equation_derivations._derivation_of(tuple(eq.sides), blank, None) == own, eq.sides
    assert verified > 500 and unverified > 30


# ------------------------------------------------------------------------------ the whole graph

def test_build_dataflow_mentions_producers_and_answer_step(rows):
    """End to end on real solutions: every step mentions what it states, a step depends only on earlier steps
    that produced a value it uses, and the answer step is the last that produced the answer (or its percent)."""
    checked = depends = 0
    for problem, solution in rows:
        text = solution.replace("####", "The answer is")
        trace = parse_trace(problem, text + ("\n#### " + solution.split("####")[-1].strip() if "####" in solution
                                             else ""))
        flow = E.build_dataflow(trace)
        seen = set()
        for index, (step, sf) in enumerate(zip(trace.steps, flow.steps)):
            written = " ".join(step.split())
            repeated = written in seen and "=" in written
            seen.add(written)
            if not repeated:
                assert sf.mentioned == [v for v, _span in quantities.step_numbers(step)]
            for j in sf.depends_on:
                assert j < index or j == index, (j, index)
                if j < index and not flow.links and "\\" not in problem + solution:  # GSM8K arithmetic: no
                    # algebra link, root rewrite or factorisation alias adds a dependence
                    produced = {quantities.value_key(v) for v in flow.steps[j].produced}
                    used = {quantities.value_key(v) for v in sf.used} | {quantities.value_key(v / 100) for v in sf.used}
                    assert produced & used or any(w for w in sf.wordy), (problem, index, j)
                    depends += 1
        if flow.answer_value is not None and flow.answer_step is not None:
            targets = (flow.answer_value, flow.answer_value / 100)
            assert any(t in flow.steps[flow.answer_step].produced for t in targets)
            assert not any(t in s.produced for s in flow.steps[flow.answer_step + 1:] for t in targets)
            checked += 1
    assert checked > 100 and depends > 100


# ------------------------------------------------------------------------------ "second" as a unit of time

_SECOND_PIECES = ["second", "Second", "SECONDS", "seconds", "secondly", " ", "  ", "\n", "\t", "per", "each", "every",
                  "one", "a", "A", "an", "3", "30", "x", "super", "Each", "the", ".", ",", "-", "ſecond"]


def test_time_second_equals_the_search(rows):
    """_time_second(text) equals bool(_TIME_SECOND.search(text)) on real text and fuzzed strings."""
    texts = [problem + "\n" + solution for problem, solution in rows]
    texts += _fuzzed(_SECOND_PIECES, 20000, seed=13, longest=8)
    texts += ["30 seconds", "per\tsecond", "the second car", "every second", "xper second", "super second", "a second",
              "ka second", "one  second", "3\n\nsecond", "second", " second"]
    found = 0
    for text in texts:
        expected = lexicon._TIME_SECOND.search(text) is not None
        assert lexicon._time_second(text) == expected, text
        found += expected
    assert found > 80


# ------------------------------------------------------------------------------ "15x2": the times sign between digits

def test_times_x_matches_as_the_lookbehind_pattern(rows):
    """_TIMES_X (class first) substitutes exactly as the pattern it replaced, (?<=\\d)[x×](?=\\d)."""
    slow = re.compile(r"(?<=\d)[x×](?=\d)")
    texts = [t for problem, solution in rows for t in (problem, solution)]
    texts += _fuzzed(["x", "×", "X", "1", "25", " ", "a", "=", "xx", "٣"], 20000, seed=14)
    changed = 0
    for text in texts:
        assert quantities._TIMES_X.sub(" ", text) == slow.sub(" ", text), text
        assert [m.span() for m in quantities._TIMES_X.finditer(text)] == [m.span() for m in slow.finditer(text)], text
        changed += slow.search(text) is not None
    assert changed > 1000


# -- lookups by int key (the constant sets, the problem's numbers, unit conversions) ---------------------------

def _sample_values(seed: int, count: int = 2000) -> list[Fraction]:
    rng = random.Random(seed)
    out = [Fraction(0), Fraction(1), Fraction(100), Fraction(1, 2), Fraction(3, 4), Fraction(75)]
    for _ in range(count):
        out.append(Fraction(rng.randint(-5000, 5000), rng.choice([1, 1, 1, 2, 3, 4, 10, 60, 100])))
    return out


def test_the_keyed_constant_sets_are_the_constant_sets():
    for public, keyed in ((E.COMMON_CONSTANTS, quantities._COMMON_KEYS),
                          (E.BASIC_CONSTANTS, quantities.BASIC_KEYS)):
        assert keyed == public and len(keyed) == len(public)
        assert all(type(k) is int for k in keyed if k.denominator == 1)
        for value in _sample_values(0):
            assert (quantities.value_key(value) in keyed) == (value in public) == (value in keyed)


def test_unit_conversions_against_keyed_problem_numbers_match_the_fraction_set():
    rng = random.Random(5)
    values = _sample_values(1, 600)
    units_pool = [Fraction(u) for u in (2, 3, 7, 12, 16, 60, 100, 1000)] + [Fraction(1, 2), Fraction(22, 7)]
    for _ in range(200):
        pnums = frozenset(rng.sample(values, 10))
        units = frozenset(rng.sample(units_pool, 4))
        slow = lexicon.Converted(pnums, units)
        fast = lexicon.Converted(frozenset(quantities.value_key(v) for v in pnums), units)
        for value in [*rng.sample(values, 40), *(v * u for v in list(pnums)[:3] for u in units)]:
            assert (value in fast) == (value in slow), (value, sorted(pnums), sorted(units))


def test_build_dataflow_keeps_the_problem_numbers_by_key():
    from rewards.parsing.trace import parse_trace

    trace = parse_trace("Ann has 3 apples and buys 4 bags of 2.5 kg.", "4 * 2.5 = 10 kg.\n3 + 10 = 13.\n#### 13")
    flow = E.build_dataflow(trace)
    assert flow._problem_keys == flow.problem_numbers
    assert {type(k) for k in flow._problem_keys} == {int, Fraction}  # 2.5 stays a Fraction, the rest are ints


def test_step_flows_have_slots_and_pickle():
    flow = E.StepFlow(3)
    flow.used.append(Fraction(5))
    assert not hasattr(flow, "__dict__")
    assert pickle.loads(pickle.dumps(flow)) == flow


def test_propagation_plan_from_the_builders_equations_and_read_anew(rows):
    """The propagation plan reads the equations build_dataflow kept on the Dataflow: the same plan as one that reads
    every step's equations anew (trace_equations, which no longer caches whole traces)."""
    from rewards.evidence import propagation

    planned = 0
    for problem, solution in rows[:120]:
        trace = parse_trace(problem, solution)
        if trace.issues:
            continue
        flow = E.build_dataflow(trace)
        assert flow._equations is not None and flow._equations[0] == tuple(trace.steps)
        kept = propagation._propagation_plan(trace, flow)
        flow._plan, flow._equations = None, None
        anew = propagation._propagation_plan(trace, flow)
        assert [[entry[1:] for entry in step] for step in kept] == [[entry[1:] for entry in step] for step in anew]
        assert [[entry[0].sides if entry[0] else None for entry in step] for step in kept] == \
            [[entry[0].sides if entry[0] else None for entry in step] for step in anew]
        planned += any(kept)
    assert planned > 50
    assert not hasattr(equation_derivations.trace_equations, "cache_info")  # no cache of whole traces


def test_unit_conversions_asked_past_the_product_set_threshold():
    """Converted answers its first questions one by one and later ones from the product set: both regimes agree with
    the set of products, and a problem with no number is never converted."""
    rng = random.Random(7)
    units = frozenset(Fraction(u) for u in (2, 3, 7, 12, 60, 100, 1000))
    for _ in range(50):
        pnums = frozenset(Fraction(rng.randint(-40, 400), rng.choice([1, 1, 2, 5])) for _ in range(rng.randint(1, 6)))
        keyed = frozenset(quantities.value_key(v) for v in pnums)
        products = lexicon._conversions(pnums, units)
        converted = lexicon.Converted(keyed, units)
        asked = [*rng.sample(sorted(products), 8), *(Fraction(rng.randint(-500, 50000), rng.choice([1, 1, 3, 4]))
                                                     for _ in range(30))]
        answers = [value in converted for value in asked]
        assert converted._products is not None  # past 2 * |pnums| questions: the product set was built
        assert answers == [value in products for value in asked]
    assert Fraction(120) not in lexicon.Converted(frozenset(), units)
