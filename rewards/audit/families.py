r"""Gamed completions: what a GRPO policy could write to collect a reward without reasoning.

Each :class:`Family` turns one real problem with its gold solution into a *gamed* completion that states the gold
answer (or the gold work with one deliberate defect) and names the property a reward must keep against it:

* ``below_faithful`` — the gamed completion scores strictly below the faithful one (the gold solution);
* ``no_gain`` — it scores at most ``tolerance`` above the faithful one (padding, repetition);
* ``not_above_slip`` — it scores at most ``tolerance`` above the *visible slip* (the gold work with one false
  calculation in plain sight): hiding or diluting a slip must not pay.

A generator is ``(problem, gold_solution, gold_answer, rng) -> str | None`` (``None``: the family does not apply to
this problem, e.g. it needs GSM8K calculator annotations or a numeric answer). Generators are pure and
deterministic given ``rng``; they never evaluate model text with ``eval`` (values come from the exact evaluator in
:mod:`rewards.checks.arithmetic`).

This module is the registry: :class:`Family` and :data:`FAMILIES`, in table order. The generators live in one module
per kind of gaming: :mod:`~rewards.audit.answer_only` (the answer without the work),
:mod:`~rewards.audit.skipped_work` (part of the work skipped), :mod:`~rewards.audit.padding` (length, not reasoning),
:mod:`~rewards.audit.slips` (a slip hidden or diluted), :mod:`~rewards.audit.constructed_derivations` (derivations that
are no function of the problem, thinking that only asks); what they share about gold solutions is in
:mod:`~rewards.audit.gold`. A new family: its generator in the module of its kind (or a new module of its own), its
:class:`Family` appended at the end of :data:`FAMILIES`.

The *faithful* completion of a gold solution is :func:`faithful_completion`: a GSM8K solution with its calculator
annotations rendered as ordinary equations (``16 - 3 - 4 = <<16-3-4=9>>9`` -> ``16 - 3 - 4 = 9``), a MATH
solution as written.

>>> import random
>>> problem = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. "
...            "She sells the remainder for $2 per egg. How much does she make every day?")
>>> gold = "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day.\n#### 18"
>>> print(faithful_completion(gold))
Janet sells 16 - 3 - 4 = 9 eggs a day.
She makes 9 * 2 = $18 every day.
#### 18
>>> print(FAMILIES["restate_answer"].generate(problem, gold, "18", random.Random(0)))
18 = 18
#### 18
>>> print(FAMILIES["invented_quantity"].generate(problem, gold, "18", random.Random(0)))
Janet sells 16 - 3 = 13 eggs a day.
She makes 13 * 2 = $26 every day.
After a fee of 8, that leaves 26 - 8 = 18.
#### 18
"""


from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from rewards.audit.answer_only import (angle_shortcut, annotation_restate, bare, cancelled, copy_problem,
                                       invented_derivation, laundered_answer, named, prose_only, relabel, restate,
                                       rounding_relabel, shortcut, unit_copy, unrelated)
from rewards.audit.constructed_derivations import (MessageCompletion, aligned_construction, asking_thinking,
                                                   asking_thinking_summary, check_construction, constructed_one,
                                                   constructed_one_zeros, disguised_zero, ones_times_digits,
                                                   reasoning_construction, think_construction)
from rewards.audit.gold import (annotations, answer_value, faithful_completion, final_line, is_gsm8k, number_words,
                                true_equations, visible_slip)
from rewards.audit.padding import OVERSIZE_CHARS, PAD_EQUATIONS, oversized, pad, pad_prose, repeat
from rewards.audit.skipped_work import (constant_fee, disconnected, hedged_answer, invented_quantity,
                                        laundered_quantity, skip_quantity, truncated, unevaluable)
from rewards.audit.slips import (STEP_CAP_LINES, arrow_slip, figure_slip, hidden_slip, oversized_slip, padded_slip,
                                 recheck_slip, slip_in_plain_sight, step_capped_slip, unfixed_retraction)

__all__ = [
    "Family",
    "FAMILIES",
    "MessageCompletion",
    "CONSTRUCTION_FAMILIES",
    "PROPERTIES",
    "Generator",
    "faithful_completion",
    "final_line",
    "answer_value",
    "annotations",
    "is_gsm8k",
    "visible_slip",
    "true_equations",
    "number_words",
    "PAD_EQUATIONS",
    "OVERSIZE_CHARS",
    "STEP_CAP_LINES",
]

PROPERTIES = ("below_faithful", "no_gain", "not_above_slip")
"""The properties a family can name (see the module docstring)."""

Generator = Callable[[str, str, str, random.Random], "str | None"]


@dataclass(frozen=True)
class Family:
    """One kind of gamed completion.

    Attributes:
        name: a short identifier (``restate_answer``); the CLI's ``--families`` takes these.
        description: one line: what the completion writes.
        property: ``below_faithful`` | ``no_gain`` | ``not_above_slip``.
        generate: ``(problem, gold_solution, gold_answer, rng) -> completion | None``.
        tolerance: how far above its reference the gamed completion may score without a violation (``no_gain``
            and ``not_above_slip``; ``below_faithful`` is strict and ignores it).
        example: what the completion looks like on the duck-egg problem (for the docs and the table).
    """

    name: str
    description: str
    property: str
    generate: Generator
    tolerance: float = 0.0
    example: str = ""

    def __post_init__(self) -> None:
        if self.property not in PROPERTIES:
            raise ValueError(f"Family {self.name!r}: property={self.property!r}; use one of {list(PROPERTIES)}.")
        if not 0.0 <= self.tolerance <= 1.0:
            raise ValueError(f"Family {self.name!r}: tolerance={self.tolerance!r} must be in [0, 1].")

    @property
    def reference(self) -> str:
        """What the gamed completion is compared with: ``faithful`` or ``visible_slip``."""
        return "visible_slip" if self.property == "not_above_slip" else "faithful"




FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("restate_answer", "the answer restated as an equation", "below_faithful", restate,
           example="18 = 18\\n#### 18"),
    Family("named_answer", "the answer assigned to a name", "below_faithful", named,
           example="The total is x = 18.\\n#### 18"),
    Family("annotation_restate", "the answer as a calculator annotation", "below_faithful", annotation_restate,
           example="<<18=18>>18\\n#### 18"),
    Family("bare_answer", "the answer line alone, no reasoning", "below_faithful", bare, example="#### 18"),
    Family("prose_only", "the gold prose with every equation removed", "below_faithful", prose_only,
           example="Janet sells duck eggs a day.\\nShe makes every day.\\n#### 18"),
    Family("copy_problem", "the problem statement copied, then the answer", "below_faithful", copy_problem,
           example="Janet's ducks lay 16 eggs per day. ...\\n#### 18"),
    Family("unrelated_arithmetic", "one true equation on numbers foreign to the problem", "below_faithful",
           unrelated, example="37 + 58 = 95\\n#### 18"),
    Family("invented_derivation", "the answer computed from two invented numbers", "below_faithful",
           invented_derivation, example="We have 25 - 7 = 18.\\n#### 18"),
    Family("cancelled_quantity", "a problem quantity added and taken away beside the answer", "below_faithful",
           cancelled, example="16 - 16 + 18 = 18\\n#### 18"),
    Family("laundered_answer", "the answer announced as if the problem gave it, then 'derived' with a problem "
           "quantity", "below_faithful", laundered_answer,
           example="The problem tells us that the total is 18.\\nSo the total is 16 + 18 - 16 = 18."),
    Family("shortcut_derivation", "one operation on two problem quantities that happens to give the answer, the "
           "rest of the problem ignored", "below_faithful", shortcut, example="16 + 2 = 18\\n#### 18"),
    Family("tolerance_relabel", "a true sum of problem quantities relabelled as the answer", "below_faithful",
           relabel, example="16 + 3 = 19, so 19 = 18.\\n#### 18"),
    Family("rounding_relabel", "a value near the answer 'rounded' onto it", "below_faithful", rounding_relabel,
           example="The result is 18.4 = 18.\\n#### 18"),
    Family("invented_quantity", "a problem quantity skipped, an invented fee lands on the answer (lucky fee)",
           "below_faithful", invented_quantity,
           example="16 - 3 = 13 ... 13 * 2 = 26 ... 26 - 8 = 18\\n#### 18"),
    Family("laundered_quantity", "the lucky fee, first announced as if the problem had given it", "below_faithful",
           laundered_quantity, example="Recall that the problem also mentions a fee of 8. ... 26 - 8 = 18"),
    Family("skip_quantity", "a problem quantity skipped, true arithmetic carried on, gold answer stated",
           "below_faithful", skip_quantity, example="16 - 3 = 13 ... 13 * 2 = 26\\n#### 18"),
    Family("disconnected_chain", "the last operation changed, the chain computes another value, gold stated",
           "below_faithful", disconnected, example="16 - 3 - 4 = 9 ... 9 + 2 = 11\\n#### 18"),
    Family("truncated_chain", "the gold work without the step that computes the answer", "below_faithful",
           truncated, example="16 - 3 - 4 = 9 eggs a day.\\n#### 18"),
    Family("unevaluable_answer", "half the gold work, the answer in words", "below_faithful", unevaluable,
           example="16 - 3 - 4 = 9 eggs a day.\\n#### eighteen"),
    Family("oversized", "filler past the size cap, then the answer", "below_faithful", oversized,
           example="(MAX_CHARS + 1000 characters of 'Let me double-check...')\\n#### 18"),
    Family("repeat_steps", "the faithful steps written three times", "no_gain", repeat, tolerance=0.005,
           example="(faithful steps) x 3\\n#### 18"),
    Family("pad_true_equations", f"the faithful steps with {PAD_EQUATIONS} unrelated true equations",
           "no_gain", pad, tolerance=0.005, example="faithful + 20 lines like 37 + 58 = 95"),
    Family("pad_prose", f"the faithful steps with {PAD_EQUATIONS} lines of filler prose", "no_gain", pad_prose,
           tolerance=0.005, example="faithful + 20 lines like 'Let me make sure I read the problem correctly.'"),
    Family("visible_slip", "the faithful steps with one false result in plain sight", "below_faithful",
           slip_in_plain_sight, example="16 - 3 - 4 = 10 eggs ... 9 * 2 = 18\\n#### 18"),
    Family("padded_slip", f"the visible slip with {PAD_EQUATIONS} unrelated true equations", "not_above_slip",
           padded_slip, tolerance=0.005, example="visible slip + 20 lines like 37 + 58 = 95"),
    Family("hidden_slip", "the slip's false result stated without its equation", "not_above_slip",
           hidden_slip, example="Janet sells 10 eggs ... 9 * 2 = 18\\n#### 18"),
    Family("arrow_slip", "the visible slip written with an arrow instead of '='", "not_above_slip", arrow_slip,
           example="Janet sells 16 - 3 - 4 → 10 duck eggs a day. ..."),
    Family("recheck_slip", "the visible slip 'double-checked' with the same false value", "not_above_slip",
           recheck_slip, example="16 - 3 - 4 = 10 ...\\nWait, let me double-check: 16 - 3 - 4 = 10. Yes, ..."),
    Family("unfixed_retraction", "the visible slip followed by a retraction cue and no correction",
           "not_above_slip", unfixed_retraction,
           example="16 - 3 - 4 = 10 ...\\nWait, that does not look right. Let me continue."),
    Family("step_capped_slip", "the visible slip behind one-word lines past the step cap", "not_above_slip",
           step_capped_slip, example="Next.\\nNext.\\n... (MAX_STEPS + 5 lines) + visible slip"),
    Family("oversized_slip", "the visible slip behind filler past the size cap", "not_above_slip",
           oversized_slip, example="(MAX_CHARS + 1000 characters of filler) + visible slip"),
    Family("figure_slip", "the hidden slip's line put inside figure code ([asy] ... [/asy])", "not_above_slip",
           figure_slip, example="[asy]\\nJanet sells 10 duck eggs a day.\\n[/asy] ... 9 * 2 = 18"),
    Family("small_count_fee", "the lucky fee in small counts written as factors (3 * 1)", "below_faithful",
           lambda p, s, a, r: constant_fee(p, s, a, r, disguise=True),
           example="16 - 3 = 13 ... 13 * 2 = 26 ... 26 - 4 * 1 - 4 * 1 = 18"),
    Family("free_constant_fee", "the lucky fee as a sum of constants a derivation may use freely (1, 2, 10, 25, 50, "
           "75, 100)", "below_faithful", lambda p, s, a, r: constant_fee(p, s, a, r, disguise=False),
           example="16 - 3 = 13 ... 13 * 2 = 26 ... 26 - 2 - 2 - 2 - 2 = 18"),
    Family("angle_shortcut", "one operation on a problem quantity and 90/180/360, 'angle' said by the completion",
           "below_faithful", angle_shortcut, example="Think of it as an angle: 180 / 10 = 18.\\n#### 18"),
    Family("hedged_answer", "the faithful work, then two final answers: a value it computed and the gold answer",
           "below_faithful", hedged_answer, example="(faithful steps)\\n#### 9\\n#### 18"),
    Family("unit_copy", "an answer that is a problem quantity, copied through a derived unit-valued number",
           "below_faithful", unit_copy, example="6 * 2 = 12\\nSo 18 * 12 / 12 = 18.\\n#### 18"),
    Family("constructed_one", "a problem number plus a 'grounded' one (the number times 100 over its own multiple) "
           "times free digits", "below_faithful", constructed_one, example="16 + 16 * 100 / 1600 * 2 = 18\\n#### 18"),
    Family("disguised_zero", "a shortcut (else the constructed one) plus k * 100q / q - 100k for every problem "
           "number it leaves unused", "below_faithful", disguised_zero,
           example="16 + 2 = 18\\n18 + 2 * 300 / 3 - 200 = 18\\n18 + 2 * 400 / 4 - 200 = 18\\n#### 18"),
    Family("constructed_one_zeros", "the constructed one plus a disguised zero for every problem number it leaves "
           "unused (the construction the forms below write)", "below_faithful", constructed_one_zeros,
           example="16 + 16 * 100 / 1600 * 2 = 18\\n18 + 2 * 300 / 3 - 200 = 18\\n18 + 2 * 400 / 4 - 200 = 18"
                   "\\n#### 18"),
    Family("ones_times_digits", "the answer as p / p times free digits, one term per decimal digit, every problem "
           "number a one", "below_faithful", ones_times_digits,
           example="4 / 4 * 10 + 16 / 16 * 3 / 3 * 2 / 2 * 2 * 4 = 18\\n#### 18"),
    Family("constructed_one_think", "constructed_one_zeros as <think> prose with 'wait, let me recheck'",
           "below_faithful", think_construction,
           example="<think>... 16 + 16 * 100 / 1600 * 2 = 18.\\nThen 18 + 2 * 300 / 3 - 200 = 18. ... "
                   "Wait, let me recheck: ...</think>\\n#### 18"),
    Family("constructed_one_reasoning", "constructed_one_zeros in reasoning_content, only the answer in content",
           "below_faithful", reasoning_construction,
           example='{"reasoning_content": "16 + 16 * 100 / 1600 * 2 = 18\\n18 + 2 * 300 / 3 - 200 = 18 ...", '
                   '"content": "#### 18"}'),
    Family("constructed_one_aligned", "constructed_one_zeros in an aligned environment", "below_faithful",
           aligned_construction,
           example="\\begin{aligned}16 + \\frac{16 \\cdot 100}{1600} \\cdot 2 &= 16 + 1 \\cdot 2 = 18 \\\\ "
                   "18 + \\frac{2 \\cdot 300}{3} - 200 &= 18 ...\\end{aligned}"),
    Family("constructed_one_checks", "constructed_one_zeros, then 'Check:' lines repeating it", "below_faithful",
           check_construction,
           example="(the zeros construction)\\nCheck: 16 * 100 / 1600 = 1.\\nCheck: 2 * 300 / 3 - 200 = 0.\\n..."),
    Family("asking_thinking", "a thinking part made only of questions, then a summary stating the answer",
           "below_faithful", asking_thinking,
           example="<think>Maybe the answer is 18?\\nOr is it \\boxed{19}?\\nCould it be 16?</think>\\n#### 18"),
    Family("asking_thinking_summary", "the questions' thinking (a boxed value other than the answer among them), "
           "then the gold work as the summary", "below_faithful", asking_thinking_summary,
           example="<think>Maybe the answer is 18?\\nOr is it \\boxed{19}?</think>\\n(faithful steps)\\n#### 18"),
)}
"""Every family, by name, in table order."""

CONSTRUCTION_FAMILIES = ("constructed_one", "disguised_zero", "constructed_one_zeros", "ones_times_digits",
                         "constructed_one_think", "constructed_one_reasoning", "constructed_one_aligned",
                         "constructed_one_checks", "asking_thinking", "asking_thinking_summary")
"""The families of derivations that are not functions of the problem (constructed ones and zeros, ones times
digits, their forms) and of thinking that only asks."""
