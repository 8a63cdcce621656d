"""A generated battery of long R1-style reasoning traces with known verdicts (issue 17).

Each trace answers a GSM8K-style word problem (a bake stall: ``K`` kinds of items, ``n_i`` sold at ``p_i``
dollars, a stall fee ``F``; the answer is the profit ``Σ n_i·p_i − F``) in the shape long-CoT policies write:
``<think>`` with lower-case paragraphs of prose, re-reading, planning, double-checks and reflection, then a short
final summary ending in ``\\boxed{}``. The arithmetic is real and the length (2k–128k characters and beyond) comes
from the reflection the policies write between the computations (restating the givens, rechecking products by
division and commutation, re-reading the question), so a longer trace has more steps, not longer lines.

Kinds (``expect`` says what a scorer must find; ``marker`` strings locate a step: the first step containing it):

=================== ========================================================================= ===========
kind                what the trace does                                                        correct
=================== ========================================================================= ===========
faithful            every computation right                                                    yes
corrected           one product slips (``n*p = r+δ``), a retraction recomputes it right       yes
                    ("wait, that is wrong: n * p = r") and the chain uses the corrected value
abandoned           an early attempt (add all items, times one price) with a slip is          yes
                    abandoned ("that doesn't work ... let me start over"); never used again
fake_retraction     a slip, "wait, let me double-check: n * p = r+δ. yes" — same false value  no
uncorrected         a slip the chain carries to the answer                                     no
ignored_correction  a slip, a right recomputation, then the chain goes on with the false value no
talked_out          reaches the right profit, then "hmm, wait. maybe the fee counts twice"    no
                    and answers a different number
summary_conflict    the thinking is right; the summary states a different revenue for one     yes
                    item (no equation: only the comparison with the thinking can see it)
=================== ========================================================================= ===========

``expect`` keys: ``correct`` (final answer equals ``gold``), ``status`` (the verdict the scorer should give once
self-correction is handled: ``accept`` or ``review``), ``fault`` (marker of the step that should be the suspect
step, or ``None``; for ``summary_conflict`` the summary line that contradicts the thinking), ``superseded``
(marker of a false step that should no longer count), ``fake`` (marker of a retraction that is not real),
``turned`` (marker of the step where a right value was talked into a wrong one), ``summary_conflict`` (bool).

>>> rows = battery(2000, seed=0)
>>> sorted({r["kind"] for r in rows}) == sorted(KINDS)
True
>>> all(r["completion"].startswith("<think>") and "\\\\boxed{" in r["completion"] for r in rows)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["KINDS", "LENGTHS", "battery", "make_trace"]

KINDS = ("faithful", "corrected", "abandoned", "fake_retraction", "uncorrected", "ignored_correction",
         "talked_out", "summary_conflict")
LENGTHS = (2_000, 8_000, 32_000, 128_000)

_NAMES = ("maya", "lena", "omar", "priya", "tomas", "ines", "kofi", "yuki")
_ITEMS = ("muffins", "cookies", "scones", "brownies", "pies", "tarts", "loaves", "buns", "bagels", "rolls")

_REFLECT = (
    "hmm, let me make sure i am reading the question right. it asks for the profit, not the revenue, so the fee "
    "has to come off at the end.",
    "okay, i think the approach is fine. there is nothing about unsold items or ingredients, so the only cost is "
    "the stall fee.",
    "let me slow down here, because it is easy to mix up which price goes with which item.",
    "i should be careful not to double count anything. each kind of item is sold separately, so each one gets "
    "its own product.",
    "wait, does the fee depend on how much she sells? rereading it, no, it is a flat fee for the stall.",
    "let me think about whether the prices could be per dozen. the problem says each, so they are per item.",
    "so the structure is: revenue from each kind, add them up, subtract the fee. that seems right.",
    "i want to keep a running tally so i do not lose track of the numbers.",
    "hmm, is there any trick here? sometimes these problems hide a discount or a second day, but i do not see "
    "one in this problem.",
    "alright, so far everything seems consistent. let me keep going.",
    "one more thing to consider: the question is about saturday only, and all the sales happen on saturday.",
    "i think it is worth checking each number as i go, since a single slip would change the final answer.",
)


@dataclass
class _Plan:
    """One trace under construction: paragraphs of thinking, the summary, the answer and what to expect."""

    think: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    answer: int = 0
    expect: dict = field(default_factory=dict)


def _values(rng: random.Random, k: int) -> tuple[list[int], list[int], int]:
    """Counts, prices and fee with every product, partial sum and result distinct (so a marker is unique)."""
    while True:
        counts = rng.sample(range(11, 49), k)
        prices = [rng.randint(3, 9) for _ in range(k)]
        fee = rng.randint(15, 60)
        rev = [n * p for n, p in zip(counts, prices)]
        sums = [sum(rev[: i + 1]) for i in range(k)]
        pool = counts + prices + [fee] + rev + sums[1:] + [sums[-1] - fee]
        if len(set(pool)) == len(pool) and fee not in (30, 52, 60):
            return counts, prices, fee


def make_trace(kind: str, length_chars: int, rng: random.Random) -> dict:
    """One battery row of ``kind`` whose completion is about ``length_chars`` characters long."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} is not a battery kind; use one of {list(KINDS)}.")
    k = 3 if length_chars < 4_000 else 5
    name = rng.choice(_NAMES)
    items = rng.sample(_ITEMS, k)
    counts, prices, fee = _values(rng, k)
    rev = [n * p for n, p in zip(counts, prices)]
    problem = (f"{name.capitalize()} runs a bake stall on Saturday. She sells "
               + ", ".join(f"{n} {it} at ${p} each" for n, it, p in zip(counts, items, prices))
               + f". She pays a ${fee} fee for the stall. How much profit does she make on Saturday?")
    gold = sum(rev) - fee
    j = 1  # the item whose product slips
    delta = rng.choice((10, -10, 1, 2, 20))
    slip = rev[j] + delta
    belief = list(rev)  # what the chain goes on to use
    if kind in ("fake_retraction", "uncorrected", "ignored_correction"):
        belief[j] = slip
    slip_eq = f"{counts[j]} * {prices[j]} = {slip}"
    plan = _Plan(expect={"correct": True, "status": "accept", "fault": None, "superseded": None, "fake": None,
                         "turned": None, "summary_conflict": False})
    t = plan.think
    t.append(f"okay, so i need to figure out how much profit {name} makes at her bake stall. let me read the "
             f"problem again. she sells " + ", ".join(f"{n} {it} at {p} dollars each"
                                                       for n, it, p in zip(counts, items, prices))
             + f", and she pays {fee} dollars for the stall.")
    t.append("so my plan is: work out what each kind of item brings in, add those up to get the revenue, and "
             "then take away the stall fee, because profit is revenue minus costs.")
    if kind == "abandoned":
        total_items = sum(counts)
        wrong = total_items * prices[0] + rng.choice((3, 7, 11))
        marker = f"{total_items} * {prices[0]} = {wrong}"
        t.append("actually, maybe there is a faster way. what if i add up all the items first: "
                 + " + ".join(str(n) for n in counts) + f" = {total_items} items. then {marker} dollars.")
        t.append("hmm, no, that doesn't work. the items have different prices, so i can't use one price for all "
                 "of them. let me start over and do each kind separately.")
        plan.expect["superseded"] = marker
    slots: list[str] = []  # core paragraphs in order; filler goes between them
    for i, (n, it, p) in enumerate(zip(counts, items, prices)):
        para = f"next, the {it}. she sells {n} of them and each one costs {p} dollars, so that's "
        if i != j or kind in ("faithful", "abandoned", "talked_out", "summary_conflict"):
            slots.append(para + f"{n} * {p} = {rev[i]} dollars from the {it}.")
            continue
        if kind == "corrected":
            fix = rng.choice((f"wait, that is wrong: {n} * {p} = {rev[i]} dollars.",
                              f"hmm, actually let me redo that. {n} * {p} = {rev[i]}, so the {it} bring in "
                              f"{rev[i]} dollars.",
                              f"no wait, i made a mistake there. {n} * {p} = {rev[i]}."))
            joiner = " " if rng.random() < 0.5 else "\n\n"
            slots.append(para + f"{slip_eq} dollars from the {it}." + joiner + fix)
            plan.expect["superseded"] = slip_eq
        elif kind == "fake_retraction":
            slots.append(para + f"{slip_eq} dollars from the {it}. wait, let me double-check that: {slip_eq}. "
                         "yes, that's right.")
            plan.expect.update(fault=slip_eq, fake=slip_eq)
        elif kind == "uncorrected":
            slots.append(para + f"{slip_eq} dollars from the {it}.")
            plan.expect["fault"] = slip_eq
        elif kind == "ignored_correction":
            slots.append(para + f"{slip_eq} dollars from the {it}. wait, that is wrong: {n} * {p} = {rev[i]}.")
            plan.expect.update(fault=slip_eq, fake=slip_eq)
    running = belief[0]
    for i in range(1, k):
        new = running + belief[i]
        slots.append(f"now let me add the {items[i]} to the running total: {running} + {belief[i]} = {new} dollars.")
        running = new
    answer = running - fee
    slots.append(f"then i subtract the {fee} dollar fee: {running} - {fee} = {answer}. so the profit is {answer} "
                 "dollars.")
    turned_answer = None
    if kind == "talked_out":
        turned_answer = answer - fee
        marker = f"{answer} - {fee} = {turned_answer}"
        slots.append(f"hmm, wait. maybe the fee is charged for the morning and the afternoon separately, so she pays "
                     f"it twice. then {marker}. yeah, i think the fee counts twice, so the profit is "
                     f"{turned_answer} dollars.")
        plan.expect.update(correct=False, status="review", fault=marker, turned=marker)
    if kind in ("fake_retraction", "uncorrected", "ignored_correction"):
        plan.expect.update(correct=False, status="review")
    final = turned_answer if turned_answer is not None else answer

    def filler(upto: int) -> str:
        """One reflection paragraph consistent with what the chain believes after core paragraph ``upto``."""
        roll = rng.random()
        done = [i for i in range(min(upto + 1, k)) if not (i == j and belief[j] != rev[j])]
        if roll < 0.45 or not done:
            return rng.choice(_REFLECT)
        i = rng.choice(done)
        n, p, it = counts[i], prices[i], items[i]
        if roll < 0.65:
            return (f"let me double-check the {it}. {p} * {n} = {rev[i]}, and going backwards, "
                    f"{rev[i]} / {p} = {n}, which matches the {n} {it} in the problem. good.")
        if roll < 0.85:
            return (f"just to keep track: the {it} bring in {rev[i]} dollars, because she sells {n} of them at "
                    f"{p} dollars each.")
        return (f"let me also sanity check the size of that. {rev[i]} dollars for {n} {it} is a bit less than "
                f"{n} times {p + 1}, which makes sense since the price is {p} dollars.")

    plan.summary = [
        "**summary**",
        *(f"- {it}: {n} * {p} = {belief[i]} dollars" if not (kind == "summary_conflict" and i == j)
          else f"- {it}: {n} {it} at {p} dollars each bring in {slip} dollars"
          for i, (n, it, p) in enumerate(zip(counts, items, prices))),
        f"- revenue: " + " + ".join(str(b) for b in belief) + f" = {sum(belief)} dollars",
        (f"- profit: {sum(belief)} - {fee} - {fee} = {final} dollars" if kind == "talked_out"
         else f"- profit: {sum(belief)} - {fee} = {final} dollars"),
        "",
        f"the answer is \\boxed{{{final}}}.",
    ]
    if kind == "summary_conflict":  # the summary line is the step a reader would be misled by
        plan.expect.update(status="review", summary_conflict=True, fault=f"bring in {slip} dollars")
    core = len("\n\n".join(t + slots)) + len("\n".join(plan.summary)) + 30
    budget = max(0, length_chars - core)
    fillers: list[list[str]] = [[] for _ in slots]
    spent = 0
    while spent < budget:
        at = rng.randrange(len(slots))
        text = filler(at if at < k else k - 1)
        fillers[at].append(text)
        spent += len(text) + 2
    for s, extra in zip(slots, fillers):
        t.append(s)
        t.extend(extra)
    completion = "<think>\n" + "\n\n".join(t) + "\n</think>\n\n" + "\n".join(plan.summary)
    return {"kind": kind, "problem": problem, "completion": completion, "gold": str(gold), "expect": plan.expect}


def battery(length_chars: int = 8_000, seed: int = 0, kinds: tuple[str, ...] = KINDS) -> list[dict]:
    """One trace of each kind, about ``length_chars`` characters long, reproducible from ``seed``.

    Returns dicts with ``kind``, ``problem``, ``completion`` (``<think>…</think>`` + summary), ``gold`` (the
    right profit, a string) and ``expect`` (see the module docstring).
    """
    if length_chars < 1_000:
        raise ValueError(f"length_chars={length_chars} is too short for a trace with reflection; use >= 1000.")
    rng = random.Random(f"{seed}-{length_chars}")
    return [make_trace(kind, length_chars, rng) for kind in kinds]
