"""Derivations as functions of the problem: the construction families write true arithmetic, the audit runs them,
and a property harness states what a reward must do with derivation programs over a real problem's quantities.

A *derivation program* is an expression over the problem's quantities (each leaf a quantity by position, never by
value) and free constants, written out as a completion (one line, or one step per operation) with its value as the
gold answer. Read as a function of the quantities it is

* *constant* (every quantity cancels: ones times digits, ``T - T + K``), *copied* (the answer is one quantity, the
  rest cancels: ``q * T / T``) — degenerate: such a derivation must never earn support;
* *non-degenerate*: every quantity it writes moves its value when edited — a correct one must always earn support.

The classification is computed here, by evaluating the program at edited quantities, not read from the text; the
reward reads the completion with ``derivation_function`` on (:mod:`rewards.evidence.derivation_function`), which links
each literal to where it came from instead of matching values. Where a written value has several sources (a derived 2
and the problem's 2, a value the problem states twice) the text itself is ambiguous: 400 random programs per
property, drawn with other seeds than the harness's, break it on about 1-3%.
"""

from __future__ import annotations

import pickle
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rewards import get_rafs_support_reward
from rewards.audit import constructions as C
from rewards.audit.battery import AuditProblem, audit, load_problems
from rewards.audit.families import (CONSTRUCTION_FAMILIES, FAMILIES, MessageCompletion, answer_value,
                                    faithful_completion)
from rewards.checks.arithmetic import check_text, numbers_in
from rewards.parsing.trace import completion_parts, extract_final_answer

DUCKS = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")
DUCKS_GOLD = ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
              "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market.\n#### 18")
MATH = "If $3x + 7 = 22$, what is $x$?"
MATH_GOLD = "Subtracting 7 gives $3x = 22 - 7 = 15$, so $x = 15/3 = \\boxed{5}$."
FREE = {Fraction(c) for c in (0, 1, *C.FREE_FACTORS)}


def gen(name, problem=DUCKS, gold=DUCKS_GOLD, answer="18", seed=0):
    return FAMILIES[name].generate(problem, gold, answer, random.Random(seed))


def pays_the_answer(prompts, completions, answer, **kwargs):
    texts = [c if isinstance(c, str) else "\n".join(m.get("content", "") for m in c) for c in completions]
    return [1.0 if extract_final_answer(completion_parts(t)[1] or t)[0] == a else 0.0 for t, a in zip(texts, answer)]


# ------------------------------------------------------------------------------------------------ the families
def test_on_the_duck_problem_the_constructions_are_16_plus_a_grounded_one_and_zeros_on_the_unused_numbers():
    assert gen("constructed_one") == "16 + 16 * 100 / 1600 * 2 = 18\n#### 18"
    zero = gen("disguised_zero")
    assert "2 * 300 / 3 - 200" in zero and "2 * 400 / 4 - 200" in zero and zero.endswith("= 18\n#### 18")
    text = gen("ones_times_digits")
    assert text.count("/") >= 2 and text.endswith("= 18\n#### 18")


@pytest.mark.parametrize("name", CONSTRUCTION_FAMILIES)
def test_every_construction_is_true_arithmetic_on_problem_numbers_and_free_constants(name, shared_data):
    """On real problems: each family states the gold answer, every equation the checker reads is true, and every
    numeral of a construction is a problem number, a free constant, or 100 times / a free multiple of one."""
    problems = load_problems(60, seed=5, data_dir=shared_data)
    built = 0
    for p in problems:
        text = FAMILIES[name].generate(p.problem, p.solution, p.answer, random.Random(1))
        if text is None:
            continue
        built += 1
        thinking, summary, has_thinking = completion_parts(text)
        assert extract_final_answer(summary if has_thinking else text)[0] is not None, (p.id, text)
        assert all(c.ok is not False for c in check_text(str(text))), (p.id, name, text)
        if name.startswith("asking"):
            assert all(ln.rstrip().endswith("?") for ln in thinking.split("\n") if ln.strip()), text
            continue
        if name == "constructed_one_aligned":
            continue  # LaTeX: the tree is checked through the plain forms of the same construction
        nums = {q for q, _ in numbers_in(p.problem)}
        v = answer_value(p.answer)
        allowed = nums | FREE | {100 * q for q in nums} | {k * 100 for k in FREE} | {v, abs(v)}
        for line in (thinking if has_thinking else text).split("\n"):
            if "=" in line:  # the left side of every step: what the construction is built from
                written = {q for q, _ in numbers_in(line.split("=")[0])}
                assert written <= allowed, (p.id, name, sorted(written - allowed), line)
    assert built >= 10, (name, built)


def test_generators_are_deterministic_and_decline_what_they_cannot_build():
    for name in CONSTRUCTION_FAMILIES:
        assert gen(name, seed=3) == gen(name, seed=3), name
        assert FAMILIES[name].generate("What is the colour of the sky?", "Blue.\n#### blue", "blue",
                                       random.Random(0)) is None, name
    # a problem with no numbers to build from: no construction (the asking families need none)
    for name in ("constructed_one", "disguised_zero", "ones_times_digits", "constructed_one_zeros"):
        assert FAMILIES[name].generate("How many legs does a spider have?", "A spider has 8 legs.\n#### 8", "8",
                                       random.Random(0)) is None, name
    # an answer no free digits can divide out (1/7): the one-based families decline rather than write 1/7
    assert FAMILIES["ones_times_digits"].generate(MATH, MATH_GOLD, "\\frac{1}{7}", random.Random(0)) is None


def test_expression_trees_evaluate_exactly_and_render_what_they_evaluate():
    q = Fraction(16)
    e = C.Op("+", C.Num(q), C.Op("*", C.grounded_one(q), C.Num(Fraction(2))))
    assert C.value(e) == 18 and C.plain(e) == "16 + 16 * 100 / 1600 * 2"
    assert C.value(C.disguised_zero(Fraction(1, 4), 2)) == 0 and C.plain(C.disguised_zero(Fraction(1, 4))) == \
        "2 * 25 / 0.25 - 200"
    for n in (1, 7, 18, 505, 987654):
        built = C.free_integer(n, [C.plain_one(Fraction(3)), C.grounded_one(Fraction(12))])
        assert built is not None and C.value(built) == n
        assert set(C.numerals(built)) <= FREE | {Fraction(3), Fraction(12), Fraction(1200)}
    assert C.value(C.free_rational(Fraction(3, 40), [C.plain_one(Fraction(5))])) == Fraction(3, 40)
    assert C.free_rational(Fraction(1, 7), [C.plain_one(Fraction(5))]) is None
    assert C.value(C.Op("/", C.Num(Fraction(1)), C.Num(Fraction(0)))) is None
    assert C.plain(C.Op("-", C.Num(Fraction(5)), C.Op("-", C.Num(Fraction(3)), C.Num(Fraction(1))))) == "5 - (3 - 1)"


def test_message_completion_is_a_message_and_never_equal_to_plain_text():
    text = gen("constructed_one_reasoning")
    assert isinstance(text, MessageCompletion)
    (msg,) = text.message()
    assert msg["role"] == "assistant" and "1600" in msg["reasoning_content"] and msg["content"] == "#### 18"
    assert text != str(text) and str(text) != text and len({text, str(text)}) == 2
    assert pickle.loads(pickle.dumps(text)) == text
    assert completion_parts(msg)[:2] == completion_parts(str(text))[:2]


def test_the_audit_runs_every_construction_family_and_passes_reasoning_content_as_a_message():
    problems = [AuditProblem("ducks", "gsm8k", DUCKS, DUCKS_GOLD, "18"), AuditProblem("linear", "math500", MATH,
                                                                                      MATH_GOLD, "5")]
    seen = []

    def recording(prompts, completions, answer, **kwargs):
        seen.extend(completions)
        return pays_the_answer(prompts, completions, answer)

    for mode in ("single", "group"):
        report = audit(recording, problems, families=list(CONSTRUCTION_FAMILIES), mode=mode, conversational=True)
        by = {f.family: f for f in report.families}
        assert all(by[n].n == 2 for n in CONSTRUCTION_FAMILIES), {n: by[n].n for n in by}
        assert all(by[n].share == 1.0 for n in CONSTRUCTION_FAMILIES)  # an answer-only reward pays every one
    assert any(m[0].get("reasoning_content") for m in seen if isinstance(m, list))
    plain = audit(pays_the_answer, problems, families=["constructed_one_reasoning"], mode="single")
    assert plain.settings["conversational"] is False and plain.families[0].share == 1.0


# ------------------------------------------------------------------------------------------------ the harness
def _leaf_value(leaf, qs):
    kind, x = leaf
    return qs[x] if kind == "q" else x


def evaluate(tree, qs) -> Fraction | None:
    """The program's value at quantities ``qs`` (leaves are quantities by position or constants)."""
    if tree[0] in ("q", "c"):
        return _leaf_value(tree, qs)
    op, left, right = tree
    a, b = evaluate(left, qs), evaluate(right, qs)
    if a is None or b is None or (op == "/" and b == 0):
        return None
    return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b


def to_expr(tree, qs) -> C.Expr:
    if tree[0] in ("q", "c"):
        return C.Num(_leaf_value(tree, qs))
    return C.Op(tree[0], to_expr(tree[1], qs), to_expr(tree[2], qs))


def leaves(tree) -> set[int]:
    if tree[0] == "q":
        return {tree[1]}
    if tree[0] == "c":
        return set()
    return leaves(tree[1]) | leaves(tree[2])


EDITS = (Fraction(1), Fraction(3), Fraction(7, 2), Fraction(11))


def edited(qs, i, d):
    return [q + d if k == i else q for k, q in enumerate(qs)]


def kind_of(tree, qs) -> str:
    """``constant``, ``copied`` or ``non_degenerate`` (every quantity it writes moves it), else ``mixed``."""
    v = evaluate(tree, qs)
    used = sorted(leaves(tree))
    at = {(i, d): evaluate(tree, edited(qs, i, d)) for i in used for d in EDITS}
    if all(x == v for x in at.values()):
        return "constant"
    for i in used:
        if all(at[(j, d)] == edited(qs, j, d)[i] for j in used for d in EDITS):
            return "copied"
    if all(any(at[(i, d)] != v for d in EDITS) for i in used):
        return "non_degenerate"
    return "mixed"


def write(tree, qs, steps: bool) -> str | None:
    """The program as a completion: one line, or one step per operation (results carried by value)."""
    value = evaluate(tree, qs)
    if value is None or C.literal(value) is None or abs(value) > 10 ** 9:
        return None
    if not steps:
        try:
            return f"{C.plain(to_expr(tree, qs))} = {C.literal(value)}\n#### {C.literal(value)}"
        except ValueError:
            return None
    lines: list[str] = []

    def emit(t) -> str | None:
        if t[0] in ("q", "c"):
            return C.literal(_leaf_value(t, qs))
        a, b = emit(t[1]), emit(t[2])
        r = evaluate(t, qs)
        if a is None or b is None or r is None or C.literal(r) is None or abs(r) > 10 ** 9:
            return None
        lines.append(f"{a if not a.startswith('-') else f'({a})'} {t[0]} {b if not b.startswith('-') else f'({b})'} "
                     f"= {C.literal(r)}")
        return C.literal(r)

    if emit(tree) is None:
        return None
    return "\n".join(lines) + f"\n#### {C.literal(value)}"


_PROBLEMS: list[tuple[str, list[Fraction]]] = []


def real_problems() -> list[tuple[str, list[Fraction]]]:
    """GSM8K train problems with 3 to 6 distinct positive quantities below 10,000 (a fixed, seeded sample)."""
    if not _PROBLEMS:
        for p in load_problems(80, seed=11, sources=("gsm8k",)):
            qs = list(dict.fromkeys(q for q, _ in numbers_in(p.problem) if 1 < q < 10_000))
            if 3 <= len(qs) <= 6:
                _PROBLEMS.append((p.problem, qs))
    return _PROBLEMS


OPS = st.sampled_from("+-*/")


def trees(n_q: int, depth: int = 3):
    leaf = st.tuples(st.just("q"), st.integers(0, n_q - 1))
    return st.recursive(leaf, lambda sub: st.tuples(OPS, sub, sub), max_leaves=2 ** depth)


def constants():
    return st.integers(2, 600).map(Fraction)


@st.composite
def programs(draw, kind: str):
    """``(problem, completion, gold)`` for a program of ``kind`` over a real problem's quantities."""
    problem, qs = draw(st.sampled_from(real_problems()))
    n = len(qs)
    if kind == "non_degenerate":
        i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        tree = (draw(OPS), ("q", i), ("q", j))
        extra = draw(st.lists(st.tuples(OPS, st.integers(0, n - 1)), max_size=2))
        for op, k in extra:  # a chain of operations on the problem's quantities
            tree = (op, tree, ("q", k)) if draw(st.booleans()) else (op, ("q", k), tree)
    elif kind == "constant":
        target = draw(constants())
        ones = [C.grounded_one(qs[k]) if draw(st.booleans()) else C.plain_one(qs[k])
                for k in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))]
        built = C.free_integer(int(target), ones)
        if built is None:
            return None
        text = f"{C.plain(built)} = {target}\n#### {target}"
        return problem, text, str(target), "constant"
    elif kind == "cancelling":
        inner = draw(trees(n))
        k = draw(constants())
        tree = draw(st.sampled_from([("+", ("-", inner, inner), ("c", k)), ("/", ("*", inner, ("c", k)), inner),
                                     ("-", ("+", inner, ("c", k)), inner)]))
    else:  # copied
        inner = draw(trees(n))
        k = draw(st.integers(0, n - 1))
        tree = draw(st.sampled_from([("/", ("*", ("q", k), inner), inner), ("-", ("+", ("q", k), inner), inner)]))
    text = write(tree, qs, steps=draw(st.booleans()))
    if text is None:
        return None
    found = kind_of(tree, qs)
    return problem, text, text.rsplit("#### ", 1)[1], found


_SUPPORT = get_rafs_support_reward(config={"derivation_function": True})


def support(problem: str, text: str, gold: str) -> float:
    (value,) = _SUPPORT(prompts=[problem], completions=[text], answer=[gold])
    return 0.0 if value is None else value


HARNESS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                   phases=(Phase.explicit, Phase.generate))  # no shrinking: a failure shows the drawn program


@HARNESS
@given(programs("constant"))
def test_a_constant_program_never_earns_support(shared_data, program):
    if program is None or program[3] != "constant":
        return
    problem, text, gold, _ = program
    assert support(problem, text, gold) == 0.0, text


@HARNESS
@given(programs("cancelling"))
def test_a_cancelling_program_never_earns_support(shared_data, program):
    if program is None or program[3] != "constant":
        return
    problem, text, gold, _ = program
    assert support(problem, text, gold) == 0.0, text


@HARNESS
@given(programs("copied"))
def test_a_copied_program_never_earns_support(shared_data, program):
    if program is None or program[3] != "copied":
        return
    problem, text, gold, _ = program
    assert support(problem, text, gold) == 0.0, text


@HARNESS
@given(programs("non_degenerate"))
def test_a_non_degenerate_correct_program_always_earns_support(shared_data, program):
    if program is None or program[3] != "non_degenerate":
        return
    problem, text, gold, _ = program
    assert support(problem, text, gold) > 0.0, text


def test_the_harness_classifies_programs_by_their_function_not_their_text():
    qs = [Fraction(16), Fraction(3), Fraction(4)]
    a, b, c = ("q", 0), ("q", 1), ("q", 2)
    assert kind_of(("-", ("-", a, b), c), qs) == "non_degenerate"
    assert kind_of(("+", ("-", a, a), ("c", Fraction(18))), qs) == "constant"
    assert kind_of(("/", ("*", b, a), a), qs) == "copied"
    assert kind_of(("*", ("/", a, a), ("c", Fraction(18))), qs) == "constant"
    assert kind_of(("+", a, ("-", b, b)), qs) == "copied"
    assert kind_of(("+", ("-", b, b), ("*", a, c)), qs) == "mixed"  # a and c move it, b cancels
    assert write(("-", ("-", a, b), c), qs, steps=True) == "16 - 3 = 13\n13 - 4 = 9\n#### 9"
    assert write(("-", ("-", a, b), c), qs, steps=False) == "16 - 3 - 4 = 9\n#### 9"
    assert faithful_completion(DUCKS_GOLD).endswith("#### 18")
