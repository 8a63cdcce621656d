"""How many MATH-500 gold derivations the algebra checks (:mod:`rewards.checks.algebra`) would verify.

Reads every gold solution of MATH-500, extracts its equations in order
(:func:`rewards.checks.arithmetic.extract_equations`) and measures:

1. **Consecutive pairs.** For each two consecutive equations that both have an unknown, the
   :func:`~rewards.checks.algebra.relation` of the second to the first (verified = ``follows`` True:
   equivalent / selects / implies; refuted = unrelated; undecided), without bindings and then with the values
   solved so far (``x = 4`` earlier in the solution) put in.
2. **Substitutions.** Equations whose unknowns are all solved earlier and with a numeric side
   (:func:`~rewards.checks.algebra.holds_under`): verified / refuted / undecided.
3. **Chains to the boxed answer.** A forward pass that mimics the scorer's grounding: reached values start as the
   problem's quantities (:func:`rewards.evidence.problem_numbers`) and the basic constants; a numeric
   equation the exact checker verifies and whose numbers are reached derives its values; an algebraic equation is
   grounded when all its numbers are reached (a source), when it follows (``follows`` True) from one of the last
   four grounded algebraic equations or from an equation of the problem, or when it holds under grounded solved
   values; values are derived only by checks, never by restating (see :func:`_chain_reaches`). The answer is
   *reached* when its numeric value is derived. Compared with today's scorer
   (``build_dataflow(...).answer_step is not None``).
4. **Corruptions.** Every verified pair again with one number of the second equation changed (``n -> n + 1``,
   each number up to three per pair), and every verified substitution with its numeric side changed: how often
   the corrupted step is still "verified" (must be ~0; each such case is printed for reading, since a changed
   number can still give a true consequence, e.g. the other root of a quadratic).

    nice -n 10 .venv/bin/python benchmarks/math_recall.py [--limit N] [--json OUT.json] [--examples K]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rewards, not an installed copy

from rewards.checks.algebra import equation_sides, holds_under, identical, relation, unknowns
from rewards.checks.answers import numeric_value
from rewards.checks.arithmetic import check_equation, evaluate, extract_equations, numbers_in
from rewards.checks.solving import solve_linear
from rewards.parsing.trace import parse_trace
from rewards.evidence import BASIC_CONSTANTS, build_dataflow, problem_numbers

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "math500" / "test.jsonl"
_NUMBER = re.compile(r"\d+")
_LONE = re.compile(r"\s*([A-Za-z])\s*$")


def _exact(text: str) -> Fraction | None:
    v = evaluate(text)
    return v.exact if v is not None and v.is_exact else None


def _reached(value: Fraction, known: set) -> bool:
    return value in known or -value in known or (value != 0 and 1 / value in known)


def _algebraic(eq) -> tuple[str, str] | None:
    """(first side, last side) when the equation has an unknown this module reads on some side, else None."""
    sides = equation_sides(" = ".join(eq.sides))
    if sides is None:
        return None
    names = [unknowns(s) for s in sides]
    if any(n is None for n in names) or not (names[0] | names[1]):
        return None
    return sides


def _corrupt(sides: tuple[str, str]):
    """Each variant of ``sides`` with one number changed (up to three numbers)."""
    text = sides[0] + " \x00 " + sides[1]
    out = []
    for m in list(_NUMBER.finditer(text))[:3]:
        new = text[:m.start()] + str(int(m.group()) + 1) + text[m.end():]
        a, b = new.split(" \x00 ")
        out.append((a, b))
    return out


def measure(limit: int | None, examples: int) -> dict:
    rows = [json.loads(x) for x in DATA.read_text().splitlines()][:limit or None]
    pairs, pairs_bound, subs = Counter(), Counter(), Counter()
    kinds = Counter()
    corrupt = Counter()
    false_examples: list = []
    verified_examples: list = []
    added_examples: list = []
    reached = Counter()
    check_seconds = 0.0
    corrupt_seconds = 0.0  # the corrupted copies' checks, not counted in the per-solution cost
    solutions_with_verified = 0
    for row in rows:
        problem, solution = row["problem"], row["solution"]
        eqs = extract_equations(solution)
        t0 = time.perf_counter()
        # -- 1, 2: pairs and substitutions
        bindings: dict[str, Fraction] = {}
        any_verified = False
        prev = None
        for eq in eqs:
            alg = _algebraic(eq)
            if alg is not None and prev is not None:
                rel = relation(prev, alg)
                kinds[rel.kind + (" (restated)" if rel.restated else "")] += 1
                verdict = rel.follows
                pairs[{True: "verified", False: "refuted", None: "undecided"}[verdict]] += 1
                if verdict and not rel.restated:
                    any_verified = True
                    if len(verified_examples) < examples:
                        verified_examples.append((" = ".join(prev), " = ".join(alg), rel.kind))
                    c0 = time.perf_counter()
                    for bad in _corrupt(alg):
                        got = relation(prev, bad).follows
                        corrupt["pairs"] += 1
                        if got:
                            corrupt["pairs_false_verified"] += 1
                            same = relation(alg, bad).kind == "equivalent"  # 4x(x-5) = 0 -> 5x(x-5) = 0
                            corrupt["pairs_false_verified_same_equation"] += same
                            if not same:
                                false_examples.append((" = ".join(prev), " = ".join(alg), " = ".join(bad)))
                    corrupt_seconds += time.perf_counter() - c0
                if verdict is not True and bindings:
                    verdict_b = relation(prev, alg, bindings).follows
                    pairs_bound[{True: "verified", False: "refuted", None: "undecided"}[verdict_b]] += 1
            if alg is not None:
                names = unknowns(alg[0]) | unknowns(alg[1])
                if names and names <= bindings.keys():
                    for expr, num in ((alg[0], alg[1]), (alg[1], alg[0])):
                        if not unknowns(num) and unknowns(expr) and not _LONE.match(expr):
                            ok = holds_under(expr, num, bindings)
                            subs[{True: "verified", False: "refuted", None: "undecided"}[ok]] += 1
                            if ok:
                                any_verified = True
                                for bad_expr, bad_num in _corrupt((expr, num))[-1:]:
                                    if bad_num == num:
                                        continue
                                    corrupt["substitutions"] += 1
                                    if holds_under(expr, bad_num, bindings):
                                        corrupt["substitutions_false_verified"] += 1
                                        false_examples.append((str(bindings), f"{expr} = {num}", bad_num))
                            break
                lone = _LONE.match(alg[0])
                value = _exact(alg[1]) if lone else None
                if lone and value is not None:
                    bindings[lone.group(1)] = value
                prev = alg
        check_seconds += time.perf_counter() - t0
        solutions_with_verified += any_verified
        # -- 3: chains to the answer
        answer = numeric_value(row["answer"])
        if answer is None:
            continue
        reached["numeric_answers"] += 1
        flow = build_dataflow(parse_trace(problem, solution))
        base = flow.answer_step is not None
        produced = {v for step in flow.steps for v in step.produced}
        new = _chain_reaches(problem, eqs, answer, produced, use_algebra=True)
        only_numeric = _chain_reaches(problem, eqs, answer, produced, use_algebra=False)
        reached["scorer_today"] += base
        reached["forward_pass_numeric_only"] += only_numeric
        reached["forward_pass_with_algebra"] += new
        reached["algebra_adds_over_scorer"] += new and not base
        if new and not base and len(added_examples) < examples:
            added_examples.append((row["unique_id"], row["answer"]))
        reached["scorer_or_algebra"] += new or base
    n = len(rows)
    return {
        "solutions": n,
        "pairs_consecutive_algebraic": dict(pairs),
        "pair_kinds": dict(kinds.most_common()),
        "pairs_not_verified_then_with_bindings": dict(pairs_bound),
        "substitutions": dict(subs),
        "solutions_with_a_verified_algebra_step": solutions_with_verified,
        "answer_reached": dict(reached),
        "corruptions": dict(corrupt),
        "false_verify_rate_pairs": round(corrupt["pairs_false_verified"] / max(1, corrupt["pairs"]), 4),
        "false_verify_rate_pairs_excluding_same_equation": round(
            (corrupt["pairs_false_verified"] - corrupt["pairs_false_verified_same_equation"]) / max(1, corrupt["pairs"]), 4),
        "false_verify_rate_substitutions": round(
            corrupt["substitutions_false_verified"] / max(1, corrupt["substitutions"]), 4),
        "algebra_ms_per_solution": round(1000 * (check_seconds - corrupt_seconds) / max(1, n), 2),
        "algebra_calls_note": "per solution: every consecutive algebraic pair (with and without bindings) and "
                              "every substitution, wall time on this machine",
        "false_verify_examples": false_examples[:40],
        "verified_examples": verified_examples,
        "answers_reached_only_with_algebra": added_examples,
    }


def _chain_reaches(problem: str, eqs, answer: Fraction, produced: set, use_algebra: bool,
                   why: list | None = None) -> bool:
    r"""Whether the forward pass derives ``answer``; ``produced``: what today's scorer derives (seeded as reached,
    not as derived: the answer counts only when this pass derives it).

    Values are derived only by a check, never by restating: (a) a numeric equation the exact checker verifies,
    with at least two reached operands; (b) ``x = c`` reached by a ``follows`` link from a grounded equation (not
    restated); (c) the root of a linear equation whose numbers are reached; (d) a substitution of grounded solved
    values into an expression that holds (``a + b = 7``); (e) an expression with at least two reached numbers that
    is identical to a constant (``\frac{x^2 + 1}{2} - \frac{x^2 - 1}{2} = 1``); (f) values stated for unknowns
    (``a = 2``, ``b = 5``) that together satisfy every one of the last grounded equations they cover (a solved
    system, or a guess checked against the problem's equation). An equation whose numbers are
    all reached is a grounded *source* for ``follows`` but derives nothing by itself (``x = 18`` does not derive
    18)."""
    known = set(problem_numbers(problem)) | set(BASIC_CONSTANTS) | produced
    derived: set[Fraction] = set()
    bindings: dict[str, Fraction] = {}
    stated: dict[str, Fraction] = {}  # values stated (x = 4) but not yet checked
    # the problem's own equations are where a derivation starts ("Solve $2x + 3 = 11$")
    grounded: list[tuple[str, str]] = [a for a in map(_algebraic, extract_equations(problem)) if a][:8]

    def add(value: Fraction, kind: str = "", source=None) -> None:
        known.add(value)
        derived.add(value)
        if why is not None:
            why.append((kind, source, value))

    for eq in eqs:
        alg = _algebraic(eq) if use_algebra else None
        if alg is None:
            check = check_equation(eq)
            if check.ok is True:
                operands = [v for side in eq.sides[:-1] for v, _ in numbers_in(side)]
                if len(operands) >= 2 and all(_reached(v, known) for v in operands):
                    for value in eq.values:
                        if value is not None and value.is_exact:
                            add(value.exact, "a computed", eq.sides)
            continue
        numbers = [v for side in alg for v, _ in numbers_in(side)]
        by_numbers = all(_reached(v, known) for v in numbers)
        rels = [relation(g, alg) for g in grounded[-4:]]
        by_follows = any(r.follows and not r.restated for r in rels)
        if not (by_numbers or by_follows):
            names = unknowns(alg[0]) | unknowns(alg[1])
            if not (names <= bindings.keys() and holds_under(alg[0], alg[1], bindings)):
                continue
        grounded.append(alg)
        for expr, num in ((alg[0], alg[1]), (alg[1], alg[0])):
            value = _exact(num)
            if value is None or not unknowns(expr):
                continue
            lone = _LONE.match(expr)
            if lone:
                name = lone.group(1)
                if by_follows:  # (b)
                    bindings[name] = value
                    add(value, "b follows", alg)
                else:  # (f) stated values that jointly satisfy an earlier grounded equation (a solved system)
                    stated[name] = value
                    trial = {**stated, **bindings, name: value}
                    checked = [(g, holds_under(g[0], g[1], trial)) for g in grounded[-12:-1]
                               if name in (unknowns(g[0]) | unknowns(g[1]))
                               and (unknowns(g[0]) | unknowns(g[1])) <= trial.keys()
                               and not (_LONE.match(g[0]) or _LONE.match(g[1]))  # "a = 2" checks nothing
                               and identical(g[0], g[1]) is not True]  # nor does an identity
                    if checked and all(ok for _, ok in checked):
                        for g, _ in checked:
                            for other in unknowns(g[0]) | unknowns(g[1]):
                                if other not in bindings:
                                    bindings[other] = trial[other]
                                    add(trial[other], "f system", (alg, g))
            elif unknowns(expr) <= bindings.keys():
                if holds_under(expr, num, bindings):  # (d)
                    add(value, "d substituted", alg)
            elif by_numbers and len(numbers_in(expr)) >= 2 and identical(expr, num):  # (e)
                add(value, "e simplified", alg)
        if by_numbers:
            root = solve_linear(*alg)  # (c)
            if root is not None:
                add(root, "c solved", alg)
                if len(unknowns(alg[0]) | unknowns(alg[1])) == 1:
                    bindings[next(iter(unknowns(alg[0]) | unknowns(alg[1])))] = root
    return answer in derived


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="only the first N problems")
    ap.add_argument("--json", default=None, help="also write the report here (refuses to overwrite without --force)")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--examples", type=int, default=12, help="verified pairs to print")
    args = ap.parse_args()
    if args.limit is not None and args.limit <= 0:
        sys.exit(f"--limit must be a positive number of problems, got {args.limit}")
    if args.json and Path(args.json).exists() and not args.force:
        sys.exit(f"--json {args.json} exists: pass --force to overwrite it")
    if not DATA.exists():
        sys.exit(f"MATH-500 not found at {DATA}: see ../shared/data/README")
    report = measure(args.limit, args.examples)
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
