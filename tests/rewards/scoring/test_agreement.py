"""Counterfactual agreement (rewards.scoring.agreement): a group member whose derivation function disagrees with its
peers' at edited inputs earns a little less; degenerate functions never gain and never isolate anyone; a group of one
is absent; equal functions written by different methods agree.

The property tests draw derivation programs over real GSM8K problems' quantities (each leaf a quantity by position,
never by value), write them as completions in several equal forms, and score whole groups with the setting off and on.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rewards import RAFSConfig, get_faithful_accuracy_reward, get_rafs_reward
from rewards.audit import constructions as C
from rewards.audit.battery import load_problems
from rewards.checks.arithmetic import numbers_in
from rewards.scoring.agreement import Agreement, agree, consistent_edits, group_agreement
from rewards.scoring.score import score_group

ON = {"counterfactual_agreement": True}
DUCKS = ("Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and bakes muffins with 4. She sells the "
         "remainder at $2 per egg. How much does she make every day?")
FAITHFUL = ["16 - 3 - 4 = 9 eggs.\n9 * 2 = 18 dollars.\n#### 18",
            "She sells 16 - 4 - 3 = 9 eggs.\nShe makes 2 * 9 = 18 dollars.\n#### 18",
            "2 * 16 = 32, 2 * 3 = 6, 2 * 4 = 8.\n32 - 6 - 8 = 18\n#### 18"]   # another method, the same function
SHORTCUT = "16 + 2 = 18 dollars.\n#### 18"                                     # a lucky one-operation shortcut
GOLD_SOLUTION = ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
                 "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer's market.\n#### 18")


def scores(problem, completions, gold="18", config=None):
    return [r.score for r in score_group(problem, completions, gold=gold, config=config, mode="reward")]


# ------------------------------------------------------------------------------------------------ examples
def test_an_isolated_shortcut_among_faithful_members_loses_a_little_and_the_faithful_lose_nothing():
    off = score_group(DUCKS, [*FAITHFUL, SHORTCUT], gold="18", mode="reward")
    on = score_group(DUCKS, [*FAITHFUL, SHORTCUT], gold="18", config=ON, mode="reward")
    assert [r.agreement for r in on] == [1.0, 1.0, 1.0, 0.9]
    assert [a.score for a in on[:3]] == [b.score for b in off[:3]]
    assert on[3].score == pytest.approx(0.9 * off[3].score) and off[3].score > 0
    assert any("counterfactual agreement" in why for why in on[3].reasons)
    assert on[3].terms["agreement"] == 0.9 and "agreement" not in off[3].terms


def test_both_rewards_that_read_the_group_pay_the_isolated_member_less():
    prompts, completions = [DUCKS] * 4, [*FAITHFUL, SHORTCUT]
    rafs_off, rafs_on = get_rafs_reward(), get_rafs_reward(ON)
    fa_off, fa_on = get_faithful_accuracy_reward(), get_faithful_accuracy_reward(config=ON)
    a, b = rafs_off(prompts, completions, answer=["18"] * 4), rafs_on(prompts, completions, answer=["18"] * 4)
    assert b[:3] == a[:3] and b[3] == pytest.approx(0.9 * a[3])
    assert fa_off(prompts, completions, answer=["18"] * 4) == [1.0, 1.0, 1.0, 1.0]
    assert fa_on(prompts, completions, answer=["18"] * 4) == [1.0, 1.0, 1.0, 0.9]


def test_a_group_of_one_is_absent_never_zero():
    (alone,) = score_group(DUCKS, [SHORTCUT], gold="18", config=ON, mode="reward")
    (before,) = score_group(DUCKS, [SHORTCUT], gold="18", mode="reward")
    assert alone.agreement is None and "agreement" not in alone.to_dict()
    assert alone.score == before.score > 0
    assert get_faithful_accuracy_reward(config=ON)([DUCKS], [SHORTCUT], answer=["18"]) == [1.0]


def test_too_few_comparable_peers_is_absent():
    on = score_group(DUCKS, [FAITHFUL[0], SHORTCUT], gold="18", config=ON, mode="reward")
    assert [r.agreement for r in on] == [None, None]
    assert scores(DUCKS, [FAITHFUL[0], SHORTCUT], config=ON) == scores(DUCKS, [FAITHFUL[0], SHORTCUT])


def test_no_one_is_isolated_by_a_group_without_a_common_method():
    # three correct derivations, three different functions: no two members agree, so no consensus isolates anyone
    distinct = [FAITHFUL[0], SHORTCUT, "3 * 4 = 12\n12 * 2 - 4 - 2 = 18\n#### 18"]
    on = score_group(DUCKS, distinct, gold="18", config=ON, mode="reward")
    assert [r.agreement for r in on] == [1.0, 1.0, 1.0]
    assert [r.score for r in on] == scores(DUCKS, distinct)


def test_degenerate_members_are_never_compared_and_never_isolate_a_faithful_one():
    constructed = ["16 + 16 * 100 / 1600 * 2 = 18\n#### 18", "16 + 16 * 100 / 1600 * 2 = 18\nSo 18.\n#### 18",
                   "2 / 2 * 16 + 2 = 18\n#### 18"]
    on = score_group(DUCKS, [FAITHFUL[0], *constructed], gold="18", config=ON, mode="reward")
    off = score_group(DUCKS, [FAITHFUL[0], *constructed], gold="18", mode="reward")
    assert [r.agreement for r in on] == [None] * 4
    assert [r.score for r in on] == [r.score for r in off]
    assert [r.score for r in on[1:]] == [0.0] * 3


def test_a_worked_reference_solution_judges_each_member_even_alone():
    on = score_group(DUCKS, [FAITHFUL[2], SHORTCUT], gold=GOLD_SOLUTION, config=ON, mode="reward")
    assert [r.agreement for r in on] == [1.0, 0.9]
    (alone,) = score_group(DUCKS, [SHORTCUT], gold=GOLD_SOLUTION, config=ON, mode="reward")
    assert alone.agreement == 0.9
    # a bare gold answer is no reference: a pair is too small a group
    assert [r.agreement for r in score_group(DUCKS, [FAITHFUL[2], SHORTCUT], gold="18", config=ON,
                                             mode="reward")] == [None, None]


def test_a_wrong_answer_is_never_compared_with_the_correct_ones():
    wrong = "16 - 3 - 4 = 9 eggs.\n9 * 3 = 27 dollars.\n#### 27"
    on = score_group(DUCKS, [*FAITHFUL, wrong], gold="18", config=ON, mode="reward")
    assert on[3].agreement is None


def test_off_by_default_and_off_changes_nothing():
    assert RAFSConfig().counterfactual_agreement is False
    off = score_group(DUCKS, [*FAITHFUL, SHORTCUT], gold="18", mode="reward")
    assert all(r.agreement is None and "agreement" not in r.to_dict() and "agreement" not in r.terms for r in off)


def test_evaluation_mode_never_reads_agreement():
    on = score_group(DUCKS, [*FAITHFUL, SHORTCUT], gold="18", config=ON, mode="evaluation")
    assert [r.agreement for r in on] == [None] * 4


@pytest.mark.parametrize("field, value", [("isolation_penalty", 1.5), ("isolation_penalty", -0.1),
                                          ("isolation_min_peers", 0), ("isolation_min_peers", True),
                                          ("counterfactual_agreement", "yes")])
def test_config_rejects_bad_values_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        RAFSConfig(**{field: value})


def test_edits_move_equal_quantities_together_and_keep_fractions_fractions():
    values = [Fraction(5), Fraction(1, 2), Fraction(5)]
    assert consistent_edits(values, [0]) == [{0: Fraction(6), 2: Fraction(6)}, {0: Fraction(7), 2: Fraction(7)}]
    assert consistent_edits(values, [1]) == [{1: Fraction(1, 4)}, {1: Fraction(1, 6)}]


def test_group_agreement_without_functions_is_absent():
    assert group_agreement([None, None, None], ["18", "18", "18"], penalty=0.9) == [None, None, None]
    assert Agreement(1.0, False, 2, 2, "group").reason is None


# ------------------------------------------------------------------------------------------------ properties
_PROBLEMS: list[tuple[str, list[Fraction]]] = []


def real_problems() -> list[tuple[str, list[Fraction]]]:
    """GSM8K train problems with 3 to 6 distinct quantities between 5 and 10,000, none a free constant (so every
    leaf is read as the problem's quantity, never as a constant), a fixed sample."""
    if not _PROBLEMS:
        free = {Fraction(v) for v in (7, 10, 12, 24, 25, 30, 50, 52, 60, 75, 100, 365, 1000, 3600)}
        for p in load_problems(600, seed=23, sources=("gsm8k",)):
            found = [q for q, _ in numbers_in(p.problem)]
            qs = list(dict.fromkeys(found))
            if len(qs) == len(found) and 3 <= len(qs) <= 6 and all(
                    q.denominator == 1 and 5 <= q < 10_000 and q not in free for q in qs):
                _PROBLEMS.append((p.problem, qs))
    return _PROBLEMS


def value(tree, qs):
    if tree[0] == "q":
        return qs[tree[1]]
    op, a, b = tree
    x, y = value(a, qs), value(b, qs)
    if x is None or y is None:
        return None
    return x + y if op == "+" else x - y if op == "-" else x * y


def intermediates(tree, qs) -> list:
    """Every value an operation of the program computes."""
    if tree[0] == "q":
        return []
    return [*intermediates(tree[1], qs), *intermediates(tree[2], qs), value(tree, qs)]


def commuted(tree):
    """The same function written another way: every ``+`` and ``*`` with its operands swapped, and a product over a
    sum distributed (``a * (b + c)`` as ``a * b + a * c``)."""
    if tree[0] == "q":
        return tree
    op, a, b = tree[0], commuted(tree[1]), commuted(tree[2])
    if op == "*" and b[0] in "+-" and b[0] != "q":
        return (b[0], ("*", b[1], a), ("*", b[2], a))
    return (op, b, a) if op in "+*" else (op, a, b)


def write(tree, qs, steps: bool) -> str | None:
    """The program as a completion: one line, or one step per operation (results carried by value)."""
    total = value(tree, qs)
    if total is None or total <= 0 or total > 10 ** 7:
        return None

    def expr(t) -> C.Expr:
        return C.Num(qs[t[1]]) if t[0] == "q" else C.Op(t[0], expr(t[1]), expr(t[2]))

    if not steps:
        return f"{C.plain(expr(tree))} = {C.literal(total)}\n#### {C.literal(total)}"
    lines: list[str] = []

    def emit(t) -> str:
        if t[0] == "q":
            return C.literal(qs[t[1]])
        a, b = emit(t[1]), emit(t[2])
        lines.append(f"{a} {t[0]} {b} = {C.literal(value(t, qs))}")
        return C.literal(value(t, qs))

    emit(tree)
    return "\n".join(lines) + f"\n#### {C.literal(total)}"


@st.composite
def programs(draw):
    """A problem, a non-degenerate program over its quantities (each at most once: every quantity it writes moves its
    value), its value, and equal forms of it."""
    problem, qs = draw(st.sampled_from(real_problems()))
    order = draw(st.permutations(range(len(qs))))
    k = draw(st.integers(2, min(4, len(qs))))
    tree = ("q", order[0])
    for i in order[1:k]:
        op = draw(st.sampled_from("+*-" if tree[0] == "q" else "+*"))
        tree = (op, tree, ("q", i)) if draw(st.booleans()) else (op, ("q", i), tree)
    if value(tree, qs) is None or value(tree, qs) <= 0:
        return None
    if any(v in qs for v in intermediates(tree, qs) + intermediates(commuted(tree), qs)):
        return None  # a result equal to a problem number is ambiguous text (the documented limit), not a method
    forms = [write(tree, qs, False), write(tree, qs, True), write(commuted(tree), qs, True),
             write(commuted(tree), qs, False)]
    if any(f is None for f in forms):
        return None
    return problem, qs, tree, forms


HARNESS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                   phases=(Phase.explicit, Phase.generate))


@HARNESS
@given(programs())
def test_equal_functions_written_by_different_methods_agree(shared_data, program):
    if program is None:
        return
    problem, qs, tree, forms = program
    gold = forms[0].rsplit("#### ", 1)[1]
    results = score_group(problem, forms, gold=gold, config=ON, mode="reward")
    assert all(r.agreement in (None, 1.0) for r in results), (forms, [r.agreement for r in results])
    assert [r.score for r in results] == scores(problem, forms, gold=gold), forms


@HARNESS
@given(programs(), st.sampled_from(["constant", "copied"]), st.integers(0, 3))
def test_degenerate_functions_never_gain_and_never_isolate_anyone(shared_data, program, kind, where):
    """A group of equal non-degenerate forms and degenerate constructions of the same answer (a constant built from
    ones times digits, or a quantity copied through ``q * T / T``): with the setting on, no degenerate member is
    compared or paid more, and no member's reward rises or falls."""
    if program is None:
        return
    problem, qs, tree, forms = program
    total = value(tree, qs)
    gold = C.literal(total)
    if kind == "constant":
        ones = [C.grounded_one(qs[0]), C.plain_one(qs[1])]
        built = C.free_integer(int(total), ones) if total.denominator == 1 and total < 10 ** 6 else None
        degenerate = None if built is None else f"{C.plain(built)} = {gold}\n#### {gold}"
    else:  # the answer copied through: total * q / q
        degenerate = f"{gold} * {C.literal(qs[where % len(qs)])} / {C.literal(qs[where % len(qs)])} = {gold}\n" \
                     f"#### {gold}" if total not in qs else None
    if degenerate is None:
        return
    group = [*forms[:2], degenerate, degenerate, forms[2]]
    on = score_group(problem, group, gold=gold, config=ON, mode="reward")
    off = score_group(problem, group, gold=gold, mode="reward")
    assert on[2].agreement is None and on[3].agreement is None, degenerate
    assert [r.score for r in on] == [r.score for r in off], (group, [r.agreement for r in on])


def test_the_property_harness_has_problems_to_draw_from(shared_data):
    assert len(real_problems()) >= 10


def test_agree_compares_only_the_quantities_both_depend_on(shared_data):
    from rewards.parsing.trace import parse_trace
    from rewards.evidence import answer_derivations, build_dataflow
    from rewards.evidence import derivation_function

    problem = "A shop sells 150 pens a day at $6 each and pays $45 a day in rent. What does it keep in 5 days?"

    def fn(text):
        t = parse_trace(problem, text)
        flow = build_dataflow(t)
        return derivation_function(t, flow, answer_derivations(flow))

    full = fn("150 * 6 = 900\n900 - 45 = 855\n855 * 5 = 4275\n#### 4275")
    head = fn("150 * 6 = 900\n900 - 45 = 855\n855 * 5 = 4275 dollars, or 4275.\n#### 4275")
    shortcut = fn("150 * 6 * 5 = 4500\n4500 - 225 = 4275\n#### 4275")  # 225 = 45 * 5 computed in the head
    assert full is not None and head is not None and shortcut is not None
    assert agree(full, head) is True
    assert agree(full, shortcut) is True  # responds alike to 150 and 6; the rent it folded into a constant


TOMATOES = ("Steve loves eating cherry tomatoes and eats twice as much as his girlfriend. If Steve eats 6 cherry "
            "tomatoes per day, how many tomato vines does he need if each vine produces 3 cherry tomatoes per week?")
TOMATO_REFERENCE = ("His girlfriend eats 6/2=<<6/2=3>>3 tomatoes per day\nSo together they eat 6+3=<<6+3=9>>9 "
                    "tomatoes a day\nThat means they eat 9*7=<<9*7=63>>63 tomatoes a day\nSo he needs "
                    "63/3=<<63/3=21>>21 tomato vines\n#### 21")


def test_a_value_derived_earlier_in_the_same_step_is_read_as_derived_and_not_isolated():
    """"6 / 2 = 3 ... 3 * 7 = 21" in one paragraph where the problem also states a 3: the second 3 is the one the
    step just derived (linked by derivation, not by value), so the valid solution computes the reference's function
    and is not isolated."""
    completion = ("Steve eats 6 * 7 = 42 cherry tomatoes a week. His girlfriend eats half of what Steve eats, "
                  "6 / 2 = 3 per day, so 3 * 7 = 21 a week.\n\nTogether they eat 42 + 21 = 63 a week, so he needs "
                  "63 / 3 = 21 vines.\n#### 21")
    cfg = {"counterfactual_agreement": True}
    result = score_group(TOMATOES, [completion], gold=TOMATO_REFERENCE, config=cfg, mode="reward")[0]
    assert result.agreement == 1.0
    # a lucky shortcut that lands on the answer still disagrees with the reference
    shortcut = score_group(TOMATOES, ["6 * 7 / 2 = 21 vines.\n#### 21"], gold=TOMATO_REFERENCE, config=cfg,
                           mode="reward")[0]
    assert shortcut.agreement is None or shortcut.agreement < 1.0


def test_a_literal_with_two_sources_agrees_through_either_reading():
    """A value two steps derive may be linked to either of them: Tom's 20 pens (4 + 16) and Ann's 20 (5 * 4), then
    "20 * 2" read from the latest (Ann's) disagrees with the reference; the other reading agrees, and two
    derivations agree when some reading of each does."""
    from rewards.evidence import build_dataflow, derivation_function
    from rewards.parsing.trace import parse_trace

    problem = ("Tom has 4 red pens and 16 blue pens. Ann has 5 boxes with 4 pens each. Tom doubles his pens. How many "
               "pens does Tom have now?")

    def fn(text: str, alternatives: int):
        trace = parse_trace(problem, text)
        return derivation_function(trace, build_dataflow(trace), alternatives=alternatives)

    completion = "Tom has 4 + 16 = 20 pens.\nAnn has 5 * 4 = 20 pens.\nTom now has 20 * 2 = 40 pens.\n#### 40"
    reference = fn("Tom has 4 + 16 = 20 pens.\nHe doubles them: 20 * 2 = 40.\n#### 40", 3)
    first, every = fn(completion, 0), fn(completion, 3)
    assert first.alternatives == () and len(every.alternatives) >= 1
    assert all(x.degenerate is None for x in every.all_readings())
    assert agree(first, reference) is False  # the latest 20 (Ann's) alone
    assert agree(every, reference) is True   # Tom's 20 among the readings
    assert agree(fn("16 + 4 = 20\n20 * 2 = 40\n#### 40", 3), reference) is True  # the same function, reordered
    assert agree(fn("5 * 4 * 2 = 40\n#### 40", 3), reference) is False  # a lucky shortcut: one reading, disagrees
