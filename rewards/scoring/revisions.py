"""Self-correction in a trace: which false steps the trace itself retracted or abandoned, which retractions are
not real, where a right value was talked into a wrong answer, and where the final summary contradicts the thinking.

Long reasoning policies check their work: "16 - 3 - 4 = 8 ... wait, that is wrong: 16 - 3 - 4 = 9". A false step
that the trace retracts and replaces is exploration, not the fault; a retraction that is not real is. The analysis
reads the words (reflection cues) *and* the data (the dataflow's equations and the values later steps use); a cue
alone never clears a step. Rules, for a step ``t`` with a false equation ``E`` whose operands are worth ``v*`` but
which states ``v'`` (or a step the verifier scores below :data:`THETA`):

**superseded** — the step no longer counts:

* *retracted*: a retraction cue (:data:`RETRACT`: "wait", "actually", "that's wrong", "let me recheck", "no,",
  "mistake", "correction", "on second thought", "hmm"...) follows ``E`` — later in the same step or within
  :data:`RECOMPUTE_WINDOW` steps — and after the cue a true equation produces ``v*`` (the same computation done
  right); no later step uses ``v'`` (unless a sound step re-derived it) and the final answer is not ``v'``.
  Steps between ``t`` and the recomputation that built on ``v'`` are superseded with it ("built on ...").
* *abandoned*: an abandonment cue (:data:`ABANDON`: "that doesn't work", "let me start over", "let me try a
  different approach", "scratch that", "never mind"...) follows within :data:`ABANDON_WINDOW` steps, the false
  step stated a false value ``v'`` (a refuted claim without a value — an inequality, a property — is never cleared
  this way: there is no data to show the attempt was dropped), and no value of the attempt (``v'`` and everything
  derived from it up to the cue) is used after the cue or is the answer. The cue must speak of an attempt
  ("*this* doesn't work", "let me try another *approach*"): "the combination (2, 2, 4) does not work" is
  mathematics, not an abandonment.

**fake** — the retraction is not real; the fault stands (a retracted step is fake, never superseded):

* a recheck after a cue states the same false value again ("wait, let me double-check: 16 - 3 - 4 = 8. yes");
* the recomputation is false too (replaced by another wrong value);
* the correction is ignored: after the right recomputation a later step still uses ``v'``, or the answer is ``v'``;
* abandoned in words, but a value of the attempt is used after the cue;
* a retraction cue within :data:`CUE_WINDOW` steps — in the false step after its equation, in the next step, or
  in a later step that mentions the false value or two numbers of the false equation — with no recomputation and
  no abandonment.

**turned_at** — the trace declared a conclusion ``V`` ("so the profit is 510", "the answer is 18") that a sound
derivation produced (every step on its path at or above :data:`THETA`, none fake), then, after a doubt cue
(:data:`DOUBT`), derived a different final answer ``W`` without correcting any false step and without bringing in
any problem quantity that ``V``'s derivation had left unused (a late "i forgot the fee" that brings in the fee is
a completion, not a turn; "maybe the fee counts twice" re-uses the fee and is a turn). ``turned_at`` is the
first step of ``W``'s derivation after the conclusion. Without a gold answer this cannot know which of ``V`` and
``W`` is right; the scorer should treat it as a failure only when the final answer is wrong (docs/long_traces.md).

**summary_conflicts** — for a completion with a thinking part and a final summary (``Trace.summary_start``): each
number a summary step states that the thinking never reached (not in the problem, not produced or mentioned by a
thinking step that still counts — a number a thinking step only asks about, "Maybe the answer is 18?", is not
reached — not a percent/negation/reciprocal of one, not one rounded to the decimals written,
not a common constant or a list/step label, not computed in the summary from such numbers), each retracted false
value the summary restates, and a summary answer the thinking never reached.

Work is linear: one pass to index values, and each false step looks at a bounded window of later steps (at most
:data:`MAX_FAULTS` false steps are analysed). Never raises: on any internal error the result is empty.

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence import build_dataflow
>>> from rewards.verifiers.symbolic import SymbolicVerifier
>>> t = parse_trace("Janet's ducks lay 16 eggs. She eats 3 and bakes with 4. She sells the rest at $2 each.",
...                 "She has 16 - 3 - 4 = 8 eggs left.\\nWait, that is wrong: 16 - 3 - 4 = 9 eggs left.\\n"
...                 "She makes 9 * 2 = 18 dollars.\\n#### 18")
>>> flow = build_dataflow(t)
>>> r = analyse_revisions(t, flow, [c.q for c in SymbolicVerifier().verify(t, flow)])
>>> sorted(r.superseded), r.fake, r.turned_at
([0], {}, None)
"""

from __future__ import annotations

import bisect
import logging
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Sequence

from rewards.checks.arithmetic import contains_any, numbers_in
from rewards.checks.claims.gates import admits
from rewards.parsing.trace import statements
from rewards.parsing.values import format_value
from rewards.evidence import COMMON_CONSTANTS

if TYPE_CHECKING:  # pragma: no cover
    from rewards.parsing.trace import Trace
    from rewards.evidence import Dataflow

__all__ = ["Revisions", "SummaryConflict", "analyse_revisions", "RETRACT", "ABANDON", "DOUBT", "THETA", "RECOMPUTE_WINDOW",
           "ABANDON_WINDOW", "CUE_WINDOW", "MAX_FAULTS"]

log = logging.getLogger(__name__)

THETA = 0.5
"""A step whose validity ``q_t`` is below this is a false step (the scorer's ``θ_step`` default)."""
RECOMPUTE_WINDOW = 12
"""A retraction's recomputation must come within this many steps after the false step."""
ABANDON_WINDOW = 40
"""An abandonment cue must come within this many steps after the false step."""
CUE_WINDOW = 3
"""A retraction cue within this many steps after a false step, with no recomputation, makes a fake retraction."""
MAX_FAULTS = 512
"""At most this many false steps are analysed per trace (bounded work on adversarial input)."""

RETRACT = re.compile(
    r"\b(?:wait|actually|hmm+|oops|whoops|hold on|on second thought|not quite|scratch that|correction"
    r"|that(?:'s| is| was| isn't| is not) (?:wrong|not right|incorrect|a mistake|an error|not correct)"
    r"|(?:i|we) made (?:a|an) (?:mistake|error|slip)|mistake|miscalculat\w*|mis-?computed|typo"
    r"|let(?: me|'s) (?:re-?check|double[- ]?check|check(?: again)?|verify|redo|re-do|re-?compute|recalculate"
    r"|re-?calculate|recount|re-?examine|reconsider|correct))\b|(?:^|[.!?]\s+)no[,.!:]",
    re.I)
"""A retraction cue: the trace says an earlier statement may be or is wrong, or sets out to check it."""

ABANDON = re.compile(
    r"(?:does ?n[o']t|did ?n[o']t|wo ?n't|will not|can ?n[o']t|cannot) (?:work|be right|make sense|be correct)"
    r"|(?:not|isn't|is not) (?:the right|a good|the correct) (?:approach|way|method|idea)|wrong (?:approach|method)"
    r"|dead end|(?:let me|let's|i'll|i will|i should) (?:start over|start again|restart|begin again|go back"
    r"|try (?:a |an )?(?:different|another|new|other|else)|try something else|try again|approach (?:this|it) "
    r"differently|do (?:this|it) (?:differently|another way|properly))"
    r"|start over|scratch that|never ?mind|forget (?:that|this|it)|abandon|(?:this|that) (?:approach|method|idea) "
    r"(?:is|was) (?:wrong|not|flawed)",
    re.I)
"""An abandonment cue: the trace drops the current attempt for another."""

DOUBT = re.compile(
    r"\b(?:wait|hmm+|actually|maybe|perhaps|on second thought|alternatively|hold on|not sure|i wonder"
    r"|second[- ]guess|reconsider|or is it|does (?:it|that|the question) mean)\b", re.I)
"""A doubt cue: the trace reopens a question it had settled (a turn needs one)."""

_CONCLUSION = re.compile(
    r"(?:answer|in total|altogether|overall|so (?:the|she|he|they|it|we|her|his|their) [a-z' ]{0,40}?"
    r"(?:is|are|was|were|makes?|made|gets?|has|have|earns?|comes? to|totals?|equals?))"
    r"[^0-9\n]{0,24}?\$?\s*(-?\d[\d,]*(?:\.\d+)?)", re.I)
_CONCLUSION_WORDS = ("answer", "in total", "altogether", "overall", "so ")


def _conclusions(text: str):
    """Matches of :data:`_CONCLUSION` in ``text``, tried only where one of its words starts (``str.find``: the
    regex alone would try every position)."""
    lowered = text.lower()
    starts = []
    for word in _CONCLUSION_WORDS:
        i = lowered.find(word)
        while i >= 0 and len(starts) < 64:
            starts.append(i)
            i = lowered.find(word, i + 1)
    for i in sorted(starts):
        m = _CONCLUSION.match(text, i)
        if m is not None:
            yield m
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]\s+)?(?:step\s+)?\(?(\d{1,2})[.):]\s", re.I)
_STEP_LABEL = re.compile(r"\bstep\s+(\d{1,3})\b", re.I)


@dataclass(frozen=True)
class SummaryConflict:
    """A number the final summary states that contradicts the thinking: at summary step ``step``, ``why``.
    ``str()`` is the reason as reported: ``"summary step {step}: {why}"``."""

    step: int
    why: str

    def __str__(self) -> str:
        return f"summary step {self.step}: {self.why}"


@dataclass(frozen=True)
class Revisions:
    """What the trace revised, and how (see the module docstring for each rule).

    Attributes:
        superseded: step -> why it no longer counts (a false step the trace retracts and replaces with a correct
            one, an attempt it abandons for another, or a step built on such a value before the retraction).
        fake: step -> why its retraction is not real (the fault stands; the step is the false step).
        turned_at: the step where a trace that had reached a soundly derived conclusion turned to a different
            answer, or ``None``.
        summary_conflicts: one :class:`SummaryConflict` per number the final summary states that contradicts the
            thinking, with the summary step that states it.
    """

    superseded: dict[int, str] = field(default_factory=dict)
    fake: dict[int, str] = field(default_factory=dict)
    turned_at: int | None = None
    summary_conflicts: list[SummaryConflict] = field(default_factory=list)


def _fmt(v: Fraction | None) -> str:
    """A value in a revision's reason: 6 significant digits, ``?`` when unknown."""
    return format_value(v, rounded=True, missing="?")


def _exact(v) -> Fraction | None:
    return v.exact if v is not None and getattr(v, "is_exact", False) else None


def _false_values(check) -> tuple[Fraction | None, Fraction | None]:
    """``(v*, v')`` of a false equation: the value its operands really have and the value it states."""
    eq = getattr(check, "equation", None)
    values = [_exact(v) for v in getattr(eq, "values", ()) or ()]
    pairs = tuple(getattr(check, "pairs", ()) or ())
    for k, ok in enumerate(pairs):
        if ok is False and k + 1 < len(values):
            return values[k], values[k + 1]
    exact = [v for v in values if v is not None]
    return (exact[0], exact[-1]) if len(exact) >= 2 else (None, None)


def _true_result(check) -> Fraction | None:
    """The result (last exact side) of a true equation."""
    values = [_exact(v) for v in getattr(getattr(check, "equation", None), "values", ()) or ()]
    return next((v for v in reversed(values) if v is not None), None)


def _span_end(check) -> int:
    span = getattr(getattr(check, "equation", None), "span", None)
    return span[1] if isinstance(span, tuple) and len(span) == 2 else 0


def _key(v: Fraction) -> tuple[int, int]:
    """A cheap hash key for a value (hashing a ``Fraction`` costs a modular inverse)."""
    return v.numerator, v.denominator


def _keys(values) -> set[tuple[int, int]]:
    return {(v.numerator, v.denominator) for v in values}


class _Index:
    """Per-value sorted lists of the steps that use / produce it: O(total operands) to build, each map when first
    read (most analyses ask only who produced a value)."""

    def __init__(self, flow: "Dataflow") -> None:
        self._flow = flow

    def _steps_by_value(self, attribute: str) -> dict[tuple[int, int], list[int]]:
        out: dict[tuple[int, int], list[int]] = {}
        for s in self._flow.steps:
            for k in _keys(getattr(s, attribute)):
                out.setdefault(k, []).append(s.index)
        return out

    @cached_property
    def uses(self) -> dict[tuple[int, int], list[int]]:
        return self._steps_by_value("used")

    @cached_property
    def prods(self) -> dict[tuple[int, int], list[int]]:
        return self._steps_by_value("produced")

    def producers(self, value: Fraction) -> list[int]:
        return self.prods.get(_key(value), [])

    def stale_use(self, value: Fraction, after: int, skip: frozenset[int] = frozenset()) -> int | None:
        """The first step after ``after`` that uses ``value`` with no sound step in between re-deriving it."""
        steps = self.uses.get(_key(value), ())
        prods = self.prods.get(_key(value), ())
        for k in steps[bisect.bisect_right(steps, after):]:
            if k in skip:
                continue
            i = bisect.bisect_right(prods, after)
            if i < len(prods) and prods[i] < k:
                return None  # re-derived soundly before this use: later uses are of the new derivation
            return k
        return None


_FOLDED = {RETRACT: re.compile(RETRACT.pattern), ABANDON: re.compile(ABANDON.pattern)}
"""The cue patterns without re.I, for lower-cased ASCII text (the same matches, two to five times faster: every
literal of both is lower case)."""


_CUE_WORDS = {
    RETRACT: ("wait", "actually", "hmm", "oops", "hold on", "second thought", "not quite", "scratch that", "correction",
              "wrong", "not right", "incorrect", "mistake", "an error", "not correct", "made a", "miscalculat",
              "miscomputed", "mis-computed", "typo", "let me", "let's", "no,", "no.", "no!", "no:"),
    ABANDON: ("work", "be right", "make sense", "be correct", "the right", "a good", "the correct", "wrong",
              "dead end", "start over", "start again", "restart", "begin again", "go back", "try", "approach",
              "do this", "do it", "scratch that", "nevermind", "never mind", "forget", "abandon", "method", "idea"),
}
"""For each cue pattern, words one of which every match holds (lower-cased): a step (ASCII) that holds none has no
cue in any window (the analysis asks about the same steps again and again, each time a window of them)."""


@lru_cache(maxsize=256)
def _cue_words_in(text: str) -> tuple[bool, bool]:
    """Whether the lower-cased ASCII ``text`` holds a word of :data:`_CUE_WORDS` for RETRACT, for ABANDON (cached
    for the few steps of one analysis)."""
    low = text.lower()
    return _has_retract_word(low), _has_abandon_word(low)


def _has_retract_word(low: str) -> bool:
    """Whether one of :data:`_CUE_WORDS` for RETRACT occurs in ``low`` (lower-cased)."""
    return contains_any(low, _CUE_WORDS[RETRACT])


def _has_abandon_word(low: str) -> bool:
    """Whether one of :data:`_CUE_WORDS` for ABANDON occurs in ``low`` (lower-cased)."""
    return contains_any(low, _CUE_WORDS[ABANDON])


def _cue_at(pattern: re.Pattern, text: str, start: int = 0, head: int = 240) -> bool:
    end = min(len(text), start + head) if head else len(text)
    folded = _FOLDED.get(pattern)
    if folded is not None and text.isascii():
        if not _cue_words_in(text)[pattern is ABANDON]:
            return False  # no word a cue needs anywhere in the step
        return folded.search(text[:end].lower(), start) is not None  # a search stops at end either way
    return pattern.search(text, start, end) is not None


def analyse_revisions(trace: "Trace", flow: "Dataflow", q: Sequence[float]) -> Revisions:
    """Self-corrections, fake retractions, the turn and summary conflicts of ``trace`` (see the module docstring).

    Args:
        trace: the parsed trace.
        flow: ``rewards.evidence.build_dataflow(trace)``.
        q: per-step validity in [0, 1] (e.g. ``[c.q for c in SymbolicVerifier().verify(trace, flow)]``).

    Never raises: odd input gives an empty :class:`Revisions`.
    """
    try:
        return _analyse(trace, flow, list(q))
    except Exception as exc:  # noqa: BLE001 - untrusted text must never crash a reward
        log.warning("revision analysis failed (%s: %s); treating the trace as unrevised", type(exc).__name__, exc)
        return Revisions()


def _analyse(trace: "Trace", flow: "Dataflow", q: list[float]) -> Revisions:
    steps = list(trace.steps)
    n = min(len(steps), len(flow.steps))
    if n == 0:
        return Revisions()
    q = (q + [1.0] * n)[:n]
    faults = []  # steps below THETA or with a failed check (a loop: no generator per step)
    flow_steps = flow.steps
    for t in range(n):
        if q[t] < THETA:
            faults.append(t)
            continue
        for c in flow_steps[t].checks:
            if c.ok is False:
                faults.append(t)
                break
    if not faults and trace.summary_start is None and flow.answer_value is not None \
            and flow.answer_value == flow.last_derived:
        return Revisions()  # nothing retracted, no summary, and the last derivation is the answer: no turn
    index = _Index(flow)
    superseded: dict[int, str] = {}
    fake: dict[int, str] = {}
    retracted_values: dict[Fraction, int] = {}
    answer = flow.answer_value
    for t in faults[:MAX_FAULTS] if faults and _may_cue(steps) else ():
        if t in superseded:
            continue
        verdict = _retraction(t, steps, flow, index, answer, n)
        if verdict is None:
            continue
        kind, reason, also, value = verdict
        if kind == "superseded":
            superseded[t] = reason
            for k, why in also.items():
                superseded.setdefault(k, why)
            if value is not None:
                retracted_values[value] = t
        else:
            fake[t] = reason
    for t in fake:
        superseded.pop(t, None)
    turned = _turn(trace, flow, q, index, superseded, fake, n)
    conflicts = _summary_conflicts(trace, flow, superseded, retracted_values, n)
    return Revisions(superseded, fake, turned, conflicts)


def _may_cue(steps: list[str]) -> bool:
    """Whether a step of ``steps`` can hold a RETRACT or ABANDON cue. Each verdict of :func:`_retraction` needs one
    (a retraction, a recheck or an abandonment is read only after a cue; without any, every false step gets
    ``None``), and every match of either pattern holds one of its :data:`_CUE_WORDS`, which the lower-cased steps
    joined then hold too: on ASCII text (what :func:`_cue_at` folds the same way) one test per trace
    (:func:`rewards.checks.claims.gates.admits`) tells a trace without a cue word, most traces, where the per-step
    reading asked each step of each window."""
    return admits(steps, _may_hold_a_cue)


def _may_hold_a_cue(text: str) -> bool:
    """Whether ``text`` can hold a RETRACT or ABANDON cue: not ASCII (the gate stays open), or a cue word in it."""
    if not text.isascii():
        return True
    low = text.lower()
    return _has_retract_word(low) or _has_abandon_word(low)


def _retraction(t, steps, flow, index: _Index, answer, n):
    """The verdict on false step ``t``: ``(kind, reason, also_superseded, false_value)`` or ``None``."""
    false_checks = [c for c in flow.steps[t].checks if c.ok is False]
    pairs = [(_false_values(c), _span_end(c)) for c in false_checks]
    known = [(vt, vf, end, c) for c, ((vt, vf), end) in zip(false_checks, pairs)
             if vt is not None and vf is not None and vt != vf]
    if known:
        v_true, v_false, eq_end, false_check = known[0]
        operands = _operands(false_check)
        same_step = _recheck_in_step(flow.steps[t].checks, steps[t], eq_end, v_true, v_false, operands)
        cue_step = t if same_step is not None or _cue_at(RETRACT, steps[t], eq_end, 0) else None
        for u in range(t + 1, min(n, t + 1 + RECOMPUTE_WINDOW)):
            if cue_step is None and _cue_at(RETRACT, steps[u]):
                cue_step = u
            if cue_step is None:
                if _cue_at(ABANDON, steps[u]):
                    break
                continue
            found = _recomputation(flow.steps[u].checks, v_true, v_false, operands)
            if found == "right":
                return _confirm(t, u, v_true, v_false, flow, index, answer)
            if found is not None:
                return "fake", found + f" (step {u})", {}, None
        if same_step == "right":
            return _confirm(t, t, v_true, v_false, flow, index, answer)
        if same_step is not None:
            return "fake", same_step + f" (within step {t})", {}, None
    else:
        v_true = v_false = None
    eq_end = max((end for _, end in pairs), default=0)
    abandoned = _abandonment(t, steps, flow, index, answer, v_false, n, eq_end)
    if abandoned is not None:
        return abandoned
    return _unanswered_cue(t, steps, flow, n, v_false, _equation_numbers(false_checks), eq_end)


def _unanswered_cue(t, steps, flow, n, v_false, own: set, eq_end: int):
    """A retraction cue about false step ``t`` (in it after its equation, or within :data:`CUE_WINDOW` steps,
    mentioning its false value or two of its numbers ``own``) that no recomputation answered: the ``fake`` verdict;
    None without such a cue."""
    for u in range(t, min(n, t + 1 + CUE_WINDOW)):
        if u > t + 1 and not (v_false in flow.steps[u].mentioned
                              or len(own.intersection(flow.steps[u].mentioned)) >= 2):
            continue  # a cue about something else: it does not retract this step
        if _cue_at(RETRACT, steps[u], eq_end if u == t else 0, 0 if u == t else 240):
            what = f"{_fmt(v_false)}" if v_false is not None else "its claim"
            return ("fake", f"a retraction cue at step {u} but no recomputation gives a value other than {what}",
                    {}, None)
    return None


def _equation_numbers(checks) -> set[Fraction]:
    """Every number written in the sides of ``checks``' equations."""
    from rewards.checks.arithmetic import numbers_in

    out: set[Fraction] = set()
    for c in checks:
        for side in getattr(getattr(c, "equation", None), "sides", ()) or ():
            out.update(v for v, _span in numbers_in(str(side)[:400]))
    return out


def _recheck_in_step(checks, text, eq_end, v_true, v_false, operands=None) -> str | None:
    """A correction inside the false step itself, after a cue: 'right', a fake reason, or None."""
    m = RETRACT.search(text, eq_end)
    if m is None:
        return None
    later = [c for c in checks if _span_end(c) > m.start()]
    return _recomputation(later, v_true, v_false, operands)


def _operands(check) -> list[Fraction]:
    """The numbers on an equation's operand sides (all sides but the last)."""
    from rewards.checks.arithmetic import numbers_in

    sides = list(getattr(getattr(check, "equation", None), "sides", ()) or ())
    return [v for side in sides[:-1] for v, _span in numbers_in(str(side)[:400])]


def _recomputation(checks, v_true, v_false, operands: Sequence[Fraction] | None = None) -> str | None:
    """'right' when a true equation among ``checks`` produces ``v_true`` from the false computation's own operands
    (at least two of them, or all when it had fewer: ``25 - 20 = 5`` after ``20 * .25 = 6`` merely lands on 5); a
    reason when the same computation is stated false again; ``None`` when neither."""
    need = min(2, len(set(operands))) if operands else 0
    for c in checks:
        if c.ok is True and _true_result(c) == v_true and len(set(_operands(c)) & set(operands or ())) >= need:
            return "right"
        if c.ok is False:
            vt, vf = _false_values(c)
            if vt == v_true and vf == v_false:
                return f"rechecked and restated the same false value {_fmt(v_false)}"
            if vt == v_true and vf is not None:
                return f"retracted but replaced by another false value {_fmt(vf)} (should be {_fmt(v_true)})"
    return None


def _confirm(t, u, v_true, v_false, flow, index: _Index, answer):
    """A right recomputation at step ``u``: superseded unless the chain still uses the false value."""
    tainted_steps = {k for k in range(t + 1, u) if v_false in flow.steps[k].used}
    if answer is not None and answer == v_false and not index.producers(v_false):
        return "fake", f"corrected to {_fmt(v_true)} at step {u}, but the final answer is the false value", {}, None
    stale = index.stale_use(v_false, u, frozenset(tainted_steps))
    if stale is not None and v_false not in flow.problem_numbers:
        return ("fake", f"corrected to {_fmt(v_true)} at step {u}, but step {stale} still uses the false value "
                f"{_fmt(v_false)}", {}, None)
    also = {k: f"built on the value {_fmt(v_false)} that step {t} states and step {u} retracts" for k in tainted_steps}
    return ("superseded", f"retracted: step {u} recomputes it as {_fmt(v_true)} (it stated {_fmt(v_false)}) and the "
            f"chain goes on with {_fmt(v_true)}", also, v_false)


def _abandonment(t, steps, flow, index: _Index, answer, v_false, n, eq_end: int = 0):
    """An attempt abandoned after false step ``t``: superseded when none of its values is used after the cue."""
    a = None
    for u in range(t, min(n, t + 1 + ABANDON_WINDOW)):
        if _cue_at(ABANDON, steps[u], eq_end if u == t else 0, 0 if u == t else 400):
            a = u
            break
    if a is None or v_false is None:
        return None  # an attempt is cleared only on data: it stated a false value that is never used again
    tainted = set(flow.steps[t].produced)
    if v_false is not None:
        tainted.add(v_false)
    steps_in = {t}
    for k in range(t + 1, a + 1):
        if tainted.intersection(flow.steps[k].used):
            tainted.update(flow.steps[k].produced)
            steps_in.add(k)
    tainted -= flow.problem_numbers
    for v in tainted:
        if answer is not None and v == answer and not any(p > a for p in index.producers(v)):
            return "fake", f"abandoned at step {a}, but the final answer {_fmt(v)} is a value of the attempt", {}, None
        stale = index.stale_use(v, a)
        if stale is not None:
            return ("fake", f"abandoned in words at step {a}, but step {stale} still uses {_fmt(v)} from the "
                    "attempt", {}, None)
    also = {k: f"part of the attempt abandoned at step {a}" for k in steps_in if k != t}
    return "superseded", f"an attempt the trace abandons at step {a} for another; none of its values is used again", \
        also, v_false


def _sound_path(flow, q, step: int, bad: set[int]) -> bool:
    path = flow.ancestors(step) | {step}
    return all(q[k] >= THETA and k not in bad for k in path if k < len(q))


def _turn(trace, flow, q, index: _Index, superseded, fake, n) -> int | None:
    """The step where a soundly derived, declared conclusion was talked into a different final answer."""
    answer = flow.answer_value
    if answer is None:
        return None
    first_w = min(index.producers(answer) or [n])
    end = min(first_w, n)
    # the last declared conclusion V != answer before the answer is first derived
    conclusion = None
    for c in range(end - 1, -1, -1):
        for m in _conclusions(trace.steps[c]):
            try:
                v = Fraction(m.group(1).replace(",", ""))
            except (ValueError, ZeroDivisionError):
                continue
            if v != answer and v not in flow.problem_numbers and index.producers(v):
                conclusion = (c, v)
        if conclusion is not None:
            break
    if conclusion is None:
        return None
    c, v = conclusion
    producers = [p for p in index.producers(v) if p <= c]
    if not producers:
        return None
    p = producers[-1]
    bad = set(fake) | {k for k in range(n) if q[k] < THETA and k not in superseded and k <= c}
    if not _sound_path(flow, q, p, bad):
        return None
    if any(c < k <= end for k in superseded):
        return None  # the change after the conclusion corrects a slip: a revision, not a turn
    doubt = next((k for k in range(c + 1, min(end + 1, n)) if DOUBT.search(trace.steps[k])), None)
    if doubt is None:
        return None
    if first_w < n:
        path = sorted(k for k in flow.ancestors(first_w) | {first_w} if k > c)
        v_path = flow.ancestors(p) | {p}
        v_problem = {u for k in v_path for u in flow.steps[k].used if u in flow.problem_numbers}
        w_problem = {u for k in path for u in flow.steps[k].used if u in flow.problem_numbers}
        if w_problem - v_problem:
            return None  # brings in a quantity the conclusion had left out: a completion ("i forgot the fee")
        return path[0] if path else first_w
    mention = next((k for k in range(c + 1, len(flow.steps)) if answer in flow.steps[k].mentioned), None)
    return mention


def _near(value: Fraction, known: set[tuple[int, int]]) -> bool:
    """``value`` is known, or a percent/negation/reciprocal of a known value (``known`` holds :func:`_key`s)."""
    if _key(value) in known or _key(-value) in known or _key(value * 100) in known or _key(value / 100) in known:
        return True
    return value != 0 and _key(1 / value) in known


def _rounded(value: Fraction, fractional: list[Fraction]) -> bool:
    """``value`` is a known non-integer rounded ("18.33" for 55/3): within half a unit of its last decimal."""
    if value.denominator == 1 and not fractional:
        return False
    digits = 0
    scaled = value
    while scaled.denominator != 1 and digits < 6:
        scaled *= 10
        digits += 1
    half = Fraction(1, 2 * 10 ** digits)
    return any(abs(k - value) <= half for k in fractional)


def _thinking_reached(trace, flow, superseded, start: int) -> set:
    """The value keys the thinking reaches before the summary: the problem's numbers, what each step that is not
    superseded produces or mentions — a number the thinking only asks about ("Maybe it is 18?") is tried, not
    reached."""
    known = _keys(flow.problem_numbers)
    for k in range(start):
        if k in superseded:
            continue
        known.update(_keys(flow.steps[k].produced))
        mentioned = flow.steps[k].mentioned
        if "?" in trace.steps[k]:
            asserted = {v for v, _ in numbers_in(statements(trace.steps[k]))}
            mentioned = [v for v in mentioned if v in asserted]
        known.update(_keys(mentioned))
    return known


def _labels(text: str) -> set[Fraction]:
    """The numbers a step uses as labels (a list marker ``3.``, "Step 2"), which state no value."""
    labels = set()
    m = _LIST_MARKER.match(text)
    if m:
        labels.add(Fraction(int(m.group(1))))
    labels.update(Fraction(int(x)) for x in _STEP_LABEL.findall(text))
    return labels


def _summary_conflicts(trace, flow, superseded, retracted_values, n) -> list[SummaryConflict]:
    start = trace.summary_start
    if start is None or start >= n or start == 0:
        return []
    known = _thinking_reached(trace, flow, superseded, start)
    retracted = {v for v in retracted_values if _key(v) not in known}
    fractional = [Fraction(a, b) for a, b in known if b != 1][:4096]
    out: list[SummaryConflict] = []
    seen: set[Fraction] = set()
    for k in range(start, n):
        labels = _labels(trace.steps[k])
        step = flow.steps[k]
        if all(_near(v, known) for v in step.used):  # sound computations from known numbers contradict nothing
            known.update(_keys(step.produced))
        for value in flow.steps[k].mentioned:
            if value in seen or value in labels or value in COMMON_CONSTANTS or _near(value, known) \
                    or _rounded(value, fractional):
                continue
            seen.add(value)
            if value in retracted:
                out.append(SummaryConflict(k, f"restates {_fmt(value)}, the value the thinking retracted at step "
                                              f"{retracted_values[value]}"))
            else:
                out.append(SummaryConflict(k, f"states {_fmt(value)}, which the thinking never reached"))
        if len(out) >= 16:
            break
    answer = flow.answer_value
    if answer is not None and answer not in seen and not (_near(answer, known) or _rounded(answer, fractional)):
        k = next((j for j in range(n - 1, start - 1, -1) if answer in flow.steps[j].mentioned), n - 1)
        out.append(SummaryConflict(k, f"the final answer {_fmt(answer)} never appears in the thinking"))
    return out
