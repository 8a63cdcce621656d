"""Counterfactual sensitivity measured with the policy itself: by continuation, or teacher-forced.

The structural sensitivity of :mod:`rewards.evidence` asks whether the answer *depends* on a step in the graph.
Here the policy answers. For every valid intervention ``j`` (step ``j``'s result ``old -> new``, the expected answer
``A'_j`` propagated through the dataflow graph), the edited step ``r'_j`` is step ``j`` with its result literal
replaced (the last literal equal to ``old``), and:

* **continuation** (``mode="generate"``): the policy continues ``x + R_<j + r'_j`` (transformers ``generate``,
  batched, greedy; :func:`vllm_generate_fn` for a ``vllm.LLM`` such as the trainer's colocated engine; or any
  ``generate_fn(list[str]) -> list[str]``). With ``A_j``
  the answer of the continuation: ``Δ_j = 1`` when ``A_j = A'_j``; ``Δ_j = 0`` when ``A_j = A`` (the answer did
  not move: post-hoc rationalisation); ``Δ_j = partial_credit`` (0.5) when it moved elsewhere; an edit whose
  continuation states no answer is dropped (reported, not scored).
* **teacher-forced** (``mode="teacher_forced"``): one batched forward pass gives the answer log-likelihoods
  ``ℓ(a | R) = log p(a | x, R)`` for the original trace ``R`` and each edited trace ``R^(j)`` (the whole trace with
  only step ``j`` edited; ``context="prefix"`` uses ``R_≤j`` / ``R_<j + r'_j`` instead), for ``a ∈ {A, A'_j}``.
  With ``drop_j = ℓ(A|R) - ℓ(A|R^(j))`` (how much the original answer lost) and
  ``shift_j = [ℓ(A'_j|R^(j)) - ℓ(A|R^(j))] - [ℓ(A'_j|R) - ℓ(A|R)]`` (log-odds moved toward ``A'_j``),
  ``Δ_j = m(drop_j) · (c + (1 - c) · m(shift_j))``, ``m(z) = 1 - exp(-softplus_β(z))``, ``c = partial_credit``:
  0 when ``A`` keeps its probability, → ``c`` when it moves elsewhere, → 1 when it moves to ``A'_j``. Smooth in the
  policy's parameters (``grad=True`` keeps the graph; see :mod:`rewards.adapters.differentiable`).

The sensitivity is ``mean_j Δ_j`` over valid edits, ``None`` (abstain) below ``m_min``. Edits keep the four
constraints, each checked here: **atomic** (exactly one number of one step changes), **bounded** (token-level
Levenshtein distance between ``r_j`` and ``r'_j`` ≤ ``max_token_edit``), **isolated** (every other step is
identical) and **no answer leakage** (``r'_j`` states neither the old answer ``A`` nor ``A'_j``). By default only
*pivotal* edits (those whose change reaches the answer in the graph, ``A'_j`` defined) are measured.

Passing it into the score: :func:`apply_sensitivity` replaces the structural sensitivity inside a
:class:`~rewards.scoring.score.RAFSResult` (``S_RA = sqrt(p_imp · sens)``, RAFS re-aggregated, status recomputed).

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence import build_dataflow
>>> t = parse_trace("Tom has 3 boxes of 4 pens. He gives away 5.", "3 * 4 = 12 pens.\\n12 - 5 = 7 pens left.\\n#### 7")
>>> flow = build_dataflow(t)
>>> edits, rejected = make_edits(t, flow)
>>> edits[0].step, edits[0].text, edits[0].expected
(0, '3 * 4 = 13 pens.', '8')
>>> def policy(prompts):  # a faithful policy: it recomputes from the edited step
...     return ["13 - 5 = 8 pens left.\\n#### 8" for _ in prompts]
>>> r = model_sensitivity(t, flow, generate_fn=policy)
>>> r.sensitivity, [d.delta for d in r.deltas]
(1.0, [1.0])
>>> model_sensitivity(t, flow, generate_fn=lambda ps: ["#### 7" for _ in ps]).sensitivity  # ignores its reasoning
0.0
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable, Sequence

from rewards.checks.arithmetic import numbers_in
from rewards.evidence import Dataflow, Intervention, approx_key, counterfactuals
from rewards.parsing.trace import Trace, extract_final_answer
from rewards.parsing.values import format_value

__all__ = ["CounterfactualConfig", "Edit", "EditDelta", "SensitivityResult", "make_edits", "token_edit_distance",
           "format_number", "hf_generate_fn", "vllm_generate_fn", "answer_logprobs", "teacher_forced_deltas",
           "generation_deltas", "model_sensitivity", "apply_sensitivity"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CounterfactualConfig:
    """Settings of the model-based counterfactuals.

    Attributes:
        max_token_edit: bounded token change: at most this token-level edit distance between ``r_j`` and ``r'_j``.
        m_min: fewer valid edits than this and the sensitivity abstains (``None``).
        partial_credit: ``Δ`` when the answer moved, but not to ``A'_j``.
        pivotal_only: measure only edits whose change reaches the answer in the dataflow graph.
        max_edits: at most this many edits per trace (the latest pivotal steps first).
        prompt_template: text before the steps; ``{problem}`` is the problem.
        step_joiner: text between steps.
        answer_template: teacher-forced: text after the steps; the part from ``{answer}`` on is the scored target
            (``"\\n#### {answer}"`` scores the tokens of the answer after ``"\\n#### "``).
        context: teacher-forced: ``"full"`` (``R^(j)``: all steps, only ``j`` edited) or ``"prefix"`` (``R_<j + r'_j``).
        beta: sharpness of the soft ``max(0, ·)`` in the teacher-forced ``Δ``.
        max_new_tokens, batch_size, max_length: generation / forward-pass bounds (inputs cut from the left).
    """

    max_token_edit: int = 4
    m_min: int = 1
    partial_credit: float = 0.5
    pivotal_only: bool = True
    max_edits: int = 8
    prompt_template: str = "{problem}\n"
    step_joiner: str = "\n"
    answer_template: str = "\n#### {answer}"
    context: str = "full"
    beta: float = 10.0
    max_new_tokens: int = 128
    batch_size: int = 16
    max_length: int = 2048

    def __post_init__(self) -> None:
        if self.max_token_edit < 1 or self.m_min < 1 or self.max_edits < 1:
            raise ValueError(f"CounterfactualConfig: max_token_edit={self.max_token_edit!r}, m_min={self.m_min!r} "
                             f"and max_edits={self.max_edits!r} must be >= 1.")
        if not 0.0 <= self.partial_credit <= 1.0:
            raise ValueError(f"CounterfactualConfig.partial_credit={self.partial_credit!r} must be in [0, 1].")
        if "{answer}" not in self.answer_template or "{problem}" not in self.prompt_template:
            raise ValueError("CounterfactualConfig.answer_template needs '{answer}' and prompt_template '{problem}'.")
        if self.context not in ("full", "prefix"):
            raise ValueError(f"CounterfactualConfig.context={self.context!r}; use 'full' or 'prefix'.")
        if self.beta <= 0 or self.max_new_tokens < 1 or self.batch_size < 1 or self.max_length < 16:
            raise ValueError(f"CounterfactualConfig: beta={self.beta!r} > 0, max_new_tokens={self.max_new_tokens!r} "
                             f">= 1, batch_size={self.batch_size!r} >= 1, max_length={self.max_length!r} >= 16.")


@dataclass(frozen=True)
class Edit:
    """One valid counterfactual edit: step ``step`` rewritten to ``text`` (``old -> new``), expecting ``expected``."""

    step: int
    old: Fraction
    new: Fraction
    original: str
    text: str
    expected: str | None
    token_distance: int


@dataclass
class EditDelta:
    """What the policy did with one edit: ``delta`` in [0, 1] and the evidence."""

    step: int
    delta: float
    expected: str | None
    answer: str | None = None
    drop: float | None = None
    shift: float | None = None


@dataclass
class SensitivityResult:
    """``sensitivity`` = mean Δ over the scored edits (``None``: abstain), with every edit's record."""

    sensitivity: float | None
    mode: str
    deltas: list[EditDelta] = field(default_factory=list)
    rejected: list[tuple[int, str]] = field(default_factory=list)
    tensor: Any = None  # teacher-forced with grad=True: the differentiable sensitivity (a 0-d torch tensor)


def format_number(value: Fraction, like: str = "") -> str:
    """``value`` written the way ``like`` writes numbers (decimal when ``like`` has a point and it terminates).

    >>> format_number(Fraction(5, 2), "1.5"), format_number(Fraction(13), "12"), format_number(Fraction(1, 3), "0.5")
    ('2.5', '13', '1/3')
    """
    return format_value(value, places=10 if "." in like else 0)


def token_edit_distance(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Levenshtein distance between two token sequences (``O(len(a)·len(b))``; steps are short).

    >>> token_edit_distance([1, 2, 3], [1, 5, 3]), token_edit_distance([1, 2], [1, 2, 3, 4])
    (1, 2)
    """
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _tokens(text: str, tokenizer) -> list:
    if tokenizer is None:
        import re

        return re.findall(r"\d+|\w+|[^\w\s]", text)
    return list(tokenizer.encode(text, add_special_tokens=False))


def make_edits(trace: Trace, flow: Dataflow, interventions: Sequence[Intervention] | None = None, tokenizer=None,
               config: CounterfactualConfig | None = None) -> tuple[list[Edit], list[tuple[int, str]]]:
    """The valid edits of ``trace`` and the rejected interventions with the constraint each broke."""
    cfg = config or CounterfactualConfig()
    if interventions is None:
        interventions = counterfactuals(trace, flow)
    edits: list[Edit] = []
    rejected: list[tuple[int, str]] = []
    for iv in interventions:
        if len(edits) >= cfg.max_edits:
            break
        edit = _edit_of(iv, trace, flow.answer_value, tokenizer, cfg)
        if isinstance(edit, str):
            rejected.append((iv.step, edit))
        else:
            edits.append(edit)
    return edits, rejected


def _edit_of(iv: Intervention, trace: Trace, answer, tokenizer, cfg: CounterfactualConfig) -> Edit | str:
    """The edit that writes ``iv.new`` for the last ``iv.old`` of its step, or the constraint it breaks (pivotal,
    atomic, bounded, no answer leakage)."""
    if cfg.pivotal_only and iv.expected is None:
        return "not pivotal: the edit does not reach the answer in the dataflow graph"
    original = trace.steps[iv.step]
    found = numbers_in(original)
    spans = [span for value, span in found if value == iv.old]
    if not spans:
        return f"atomic: the result {iv.old} is not written in the step"
    start, end = spans[-1]
    text = original[:start] + format_number(iv.new, original[start:end]) + original[end:]
    after = numbers_in(text)
    changed = [k for k, ((v1, _), (v2, _)) in enumerate(zip(found, after)) if v1 != v2]
    if len(after) != len(found) or len(changed) != 1:
        return "atomic: the rewrite changed more than one number"
    distance = token_edit_distance(_tokens(original, tokenizer), _tokens(text, tokenizer))
    if distance > cfg.max_token_edit:
        return f"bounded: token edit distance {distance} > max_token_edit={cfg.max_token_edit}"
    values = {v for v, _ in after}
    leaked = [v for v in (answer, iv.expected) if v is not None and v in values]
    if leaked:
        return f"answer leakage: the edited step states {format_number(leaked[0])}"
    return Edit(iv.step, iv.old, iv.new, original, text, format_value(iv.expected), distance)


def _edited_steps(trace: Trace, edit: Edit, context: str) -> list[str]:
    steps = list(trace.steps)
    steps[edit.step] = edit.text
    out = steps if context == "full" else steps[:edit.step + 1]
    # isolated: every other step is the original one
    assert all(a == b for k, (a, b) in enumerate(zip(out, trace.steps)) if k != edit.step)
    return out


def _render(trace: Trace, steps: Sequence[str], cfg: CounterfactualConfig) -> str:
    return cfg.prompt_template.format(problem=trace.problem) + cfg.step_joiner.join(steps)


# ---------------------------------------------------------------------------------------------------------------
# continuation
# ---------------------------------------------------------------------------------------------------------------

def hf_generate_fn(model, tokenizer, *, max_new_tokens: int = 128, batch_size: int = 16, max_length: int = 2048,
                   **generate_kwargs) -> Callable[[list[str]], list[str]]:
    """A ``generate_fn`` from a transformers causal LM: batched, left-padded, greedy unless told otherwise."""
    import torch

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    kwargs = {"do_sample": False, "max_new_tokens": max_new_tokens, "pad_token_id": pad, **generate_kwargs}

    def generate(prompts: list[str]) -> list[str]:
        device = next(model.parameters()).device
        out: list[str] = []
        for start in range(0, len(prompts), batch_size):
            chunk = [tokenizer.encode(p)[-max_length:] for p in prompts[start:start + batch_size]]
            width = max(len(c) for c in chunk)
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            mask = torch.zeros_like(ids)
            for i, c in enumerate(chunk):
                ids[i, width - len(c):] = torch.tensor(c, dtype=torch.long)
                mask[i, width - len(c):] = 1
            with torch.inference_mode():
                gen = model.generate(input_ids=ids.to(device), attention_mask=mask.to(device), **kwargs)
            out.extend(tokenizer.decode(row[width:], skip_special_tokens=True) for row in gen.cpu())
        return out

    return generate


def vllm_generate_fn(llm, sampling_params=None, *, max_new_tokens: int = 128) -> Callable[[list[str]], list[str]]:
    """A ``generate_fn`` from a ``vllm.LLM`` (e.g. TRL's colocated engine, ``trainer.llm``): greedy by default.

    ``sampling_params`` is a ``vllm.SamplingParams``; ``None`` builds ``SamplingParams(temperature=0,
    max_tokens=max_new_tokens)`` (vLLM is imported only then).
    """
    def generate(prompts: list[str]) -> list[str]:
        params = sampling_params
        if params is None:
            from vllm import SamplingParams

            params = SamplingParams(temperature=0.0, max_tokens=max_new_tokens)
        outputs = llm.generate(list(prompts), params, use_tqdm=False)
        return [o.outputs[0].text if getattr(o, "outputs", None) else "" for o in outputs]

    return generate


def generation_deltas(trace: Trace, flow: Dataflow, edits: Sequence[Edit],
                      generate_fn: Callable[[list[str]], list[str]], config: CounterfactualConfig | None = None,
                      ) -> tuple[list[EditDelta], list[tuple[int, str]]]:
    """Continue each edited prefix with ``generate_fn`` and score ``Δ_j`` (1 / partial / 0)."""
    from rewards.checks.answers import approximate_value, named_value

    cfg = config or CounterfactualConfig()
    if not edits:
        return [], []
    prompts = [_render(trace, _edited_steps(trace, e, "prefix"), cfg) + cfg.step_joiner for e in edits]
    outputs = list(generate_fn(prompts))
    if len(outputs) != len(prompts):
        raise ValueError(f"generate_fn returned {len(outputs)} texts for {len(prompts)} prompts.")
    deltas, dropped = [], []
    for e, text in zip(edits, outputs):
        answer, _src = extract_final_answer(str(text)[-16000:])
        value = named_value(answer) if answer else None
        if value is None and answer and flow.approximate:  # an irrational answer, keyed as the dataflow keys it
            approx = approximate_value(answer)
            value = approx_key(approx) if approx is not None and math.isfinite(approx) else None
        if value is None:
            dropped.append((e.step, "the continuation states no numeric answer"))
            continue
        if e.expected is not None and value == Fraction(e.expected):
            delta = 1.0
        elif value == flow.answer_value:
            delta = 0.0
        else:
            delta = cfg.partial_credit
        deltas.append(EditDelta(e.step, delta, e.expected, answer))
    return deltas, dropped


# ---------------------------------------------------------------------------------------------------------------
# teacher forcing
# ---------------------------------------------------------------------------------------------------------------

def answer_logprobs(model, tokenizer, contexts: Sequence[str], targets: Sequence[str], *, grad: bool = False,
                    max_length: int = 2048, batch_size: int | None = None):
    """``log p(target | context)`` summed over the target's tokens, for each pair: one padded forward pass.

    Context and target are tokenised separately and concatenated (the target's tokens are exactly the scored
    ones); rows are right-padded and masked; the logits at positions ``len(ctx)-1 ... len(ctx)+len(tgt)-2`` are
    gathered. ``grad=True`` keeps the autograd graph (for training); else ``torch.inference_mode()``.
    Returns a float32 tensor ``[n]`` on the model's device.
    """
    import contextlib

    import torch

    device = next(model.parameters()).device
    rows, spans = _token_rows(tokenizer, contexts, targets, max_length)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    size = batch_size or len(rows)
    with contextlib.nullcontext() if grad else torch.inference_mode():
        results = [_summed_logprobs(model, rows[start:start + size], spans[start:start + size], pad, device)
                   for start in range(0, len(rows), size)]
    return torch.cat(results)


def _token_rows(tokenizer, contexts: Sequence[str], targets: Sequence[str],
                max_length: int) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """Each pair's tokens (the context cut from the left to fit ``max_length`` with its target) and
    ``(context length, target length)``."""
    rows, spans = [], []
    for ctx, tgt in zip(contexts, targets):
        c = tokenizer.encode(ctx)
        t = tokenizer.encode(tgt, add_special_tokens=False)
        if not t:
            raise ValueError(f"the target {tgt!r} encodes to no tokens.")
        c = c[-max(1, max_length - len(t)):]
        rows.append(c + t)
        spans.append((len(c), len(t)))
    return rows, spans


def _summed_logprobs(model, chunk: list[list[int]], chunk_spans: list[tuple[int, int]], pad: int, device):
    """One forward pass over right-padded rows: each row's target log-probability, summed over its tokens."""
    import torch

    width = max(len(r) for r in chunk)
    ids = torch.full((len(chunk), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, r in enumerate(chunk):
        ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
        mask[i, :len(r)] = 1
    logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits.float()
    logp = torch.log_softmax(logits[:, :-1], dim=-1)  # position p predicts token p+1
    gathered = logp.gather(-1, ids[:, 1:].to(device).unsqueeze(-1)).squeeze(-1)
    select = torch.zeros_like(gathered)
    for i, (lc, lt) in enumerate(chunk_spans):
        select[i, lc - 1:lc - 1 + lt] = 1.0
    return (gathered * select).sum(-1)


def _soft_relu_prob(z, beta: float):
    """``m(z) = 1 - exp(-softplus_β(z))``: 0 for z ≪ 0, ≈ 1 - e^{-z} for z ≫ 0 (a soft P(moved))."""
    import torch

    return 1.0 - torch.exp(-torch.nn.functional.softplus(z, beta=beta))


def _target(cfg: CounterfactualConfig, answer: str) -> tuple[str, str]:
    """(context suffix, scored target): a space before the answer belongs to the target, as BPE tokenisers
    write it (``"####", " 19"``), not to the context."""
    head, _sep, tail = cfg.answer_template.partition("{answer}")
    stripped = head.rstrip(" ")
    return stripped, head[len(stripped):] + answer + tail.rstrip()


def teacher_forced_deltas(model, tokenizer, trace: Trace, flow: Dataflow, edits: Sequence[Edit],
                          config: CounterfactualConfig | None = None, *, grad: bool = False):
    """``(deltas, Δ tensor [m])``: the teacher-forced ``Δ_j`` of each edit (formula in the module docstring).

    All ``4m`` (context, target) pairs — per edit ``(R^(j), A)``, ``(R^(j), A'_j)``, ``(R, A'_j)``, ``(R, A)``
    (``R`` cut to ``R_≤j`` with ``context="prefix"``) — go through one batched forward pass.
    """
    cfg = config or CounterfactualConfig()
    if not edits:
        return [], None
    contexts, targets = _forced_pairs(trace, flow, edits, cfg)
    lp = answer_logprobs(model, tokenizer, contexts, targets, grad=grad, max_length=cfg.max_length)
    drop, shift, delta = _deltas(lp, edits, cfg)
    records = [EditDelta(e.step, float(d), e.expected, None, float(dr), float(s))
               for e, d, dr, s in zip(edits, delta.detach().cpu(), drop.detach().cpu(), shift.detach().cpu())]
    return records, delta


def _forced_pairs(trace: Trace, flow: Dataflow, edits: Sequence[Edit],
                  cfg: CounterfactualConfig) -> tuple[list[str], list[str]]:
    """The ``4m`` (context, target) pairs, per edit ``(R^(j), A)``, ``(R^(j), A'_j)``, ``(R, A'_j)``, ``(R, A)``."""
    answer = trace.answer if trace.answer is not None else format_value(flow.answer_value)
    head, target_a = _target(cfg, answer)
    base_steps = list(trace.steps)
    contexts, targets = [], []
    for e in edits:
        steps = _edited_steps(trace, e, cfg.context)
        ref = base_steps if cfg.context == "full" else base_steps[:e.step + 1]
        expected = _target(cfg, e.expected)[1] if e.expected is not None else target_a
        edited_ctx = _render(trace, steps, cfg) + head
        ref_ctx = _render(trace, ref, cfg) + head
        contexts += [edited_ctx, edited_ctx, ref_ctx, ref_ctx]
        targets += [target_a, expected, expected, target_a]
    return contexts, targets


def _deltas(lp, edits: Sequence[Edit], cfg: CounterfactualConfig):
    """``(drop, shift, Δ)`` per edit from the ``4m`` log-probabilities (formula in the module docstring)."""
    import torch

    m = len(edits)
    lp_a_edit, lp_x_edit, lp_x_ref, lp_a_ref = (lp.view(m, 4)[:, k] for k in range(4))
    drop = lp_a_ref - lp_a_edit
    shift = (lp_x_edit - lp_a_edit) - (lp_x_ref - lp_a_ref)
    has_expected = torch.tensor([e.expected is not None for e in edits], device=lp.device)
    toward = torch.where(has_expected, _soft_relu_prob(shift, cfg.beta), torch.zeros_like(shift))
    delta = _soft_relu_prob(drop, cfg.beta) * (cfg.partial_credit + (1.0 - cfg.partial_credit) * toward)
    return drop, shift, delta


def model_sensitivity(trace: Trace, flow: Dataflow, model=None, tokenizer=None, *, mode: str | None = None,
                      generate_fn: Callable[[list[str]], list[str]] | None = None,
                      config: CounterfactualConfig | None = None, grad: bool = False) -> SensitivityResult:
    """The policy's counterfactual sensitivity of ``trace`` in [0, 1] (``None``: abstain), with per-edit Δs.

    Args:
        model, tokenizer: a transformers causal LM (the policy) and its tokenizer.
        mode: ``"teacher_forced"`` (needs model and tokenizer) or ``"generate"`` (needs ``generate_fn`` or a model);
            default: ``"generate"`` when ``generate_fn`` is given, else ``"teacher_forced"``.
        generate_fn: ``list[str] -> list[str]`` continuations (the trainer's vLLM engine, an API...).
        grad: teacher-forced only: keep the graph; ``result.tensor`` is then the differentiable sensitivity.
    """
    cfg = config or CounterfactualConfig()
    mode = mode or ("generate" if generate_fn is not None else "teacher_forced")
    if mode not in ("generate", "teacher_forced"):
        raise ValueError(f"mode={mode!r}; use 'generate' or 'teacher_forced'.")
    if trace.issues or flow.answer_value is None:
        return SensitivityResult(None, mode, rejected=[(-1, "no numeric final answer: nothing to intervene on")])
    edits, rejected = make_edits(trace, flow, tokenizer=tokenizer, config=cfg)
    if mode == "generate":
        if generate_fn is None:
            if model is None or tokenizer is None:
                raise ValueError("mode='generate' needs generate_fn=..., or model= and tokenizer= for transformers.")
            generate_fn = hf_generate_fn(model, tokenizer, max_new_tokens=cfg.max_new_tokens,
                                         batch_size=cfg.batch_size, max_length=cfg.max_length)
        deltas, dropped = generation_deltas(trace, flow, edits, generate_fn, cfg)
        rejected += dropped
        tensor = None
    else:
        if model is None or tokenizer is None:
            raise ValueError("mode='teacher_forced' needs model= and tokenizer= (a transformers causal LM).")
        deltas, tensor = teacher_forced_deltas(model, tokenizer, trace, flow, edits, cfg, grad=grad)
    if len(deltas) < cfg.m_min:
        return SensitivityResult(None, mode, deltas, rejected)
    sens = sum(d.delta for d in deltas) / len(deltas)
    return SensitivityResult(min(1.0, max(0.0, sens)), mode, deltas, rejected,
                             tensor.mean() if tensor is not None else None)


def apply_sensitivity(result, flow: Dataflow, sensitivity: float | None, config=None):
    """A copy of ``result`` (a :class:`~rewards.scoring.score.RAFSResult`) with the model-measured sensitivity in S_RA.

    ``S_RA = support(p_imp, sensitivity)``, RAFS re-aggregated with the config's weights, status recomputed
    (``abstain`` stays ``abstain``). ``sensitivity=None`` keeps ``p_imp`` alone in S_RA. The measured sensitivity
    enters as is: ``RAFSConfig.sens_floor`` discounts only the *structural* one, whose exact propagation cannot
    follow a dependency through words; the policy's answer either follows the edit or it does not.

    Usage::

        result = score_trace(problem, completion)
        trace = parse_trace(problem, completion); flow = build_dataflow(trace)
        sens = model_sensitivity(trace, flow, policy, tokenizer).sensitivity
        result = apply_sensitivity(result, flow, sens)
    """
    from rewards.scoring import components as C
    from rewards.scoring.score import RAFSConfig

    cfg = config or RAFSConfig()
    if result.status == "abstain" or result.score is None:
        return result
    if sensitivity is not None and not (isinstance(sensitivity, (int, float)) and 0.0 <= sensitivity <= 1.0
                                        and not math.isnan(sensitivity)):
        raise ValueError(f"sensitivity={sensitivity!r} must be in [0, 1] or None.")
    comps = dict(result.components)
    comps["S_RA"] = C.support(C.implication(flow), sensitivity)
    score = C.aggregate(comps, cfg.weights, cfg.eps)
    status = "accept" if score is not None and score >= cfg.tau_accept and result.suspect_step is None else "review"
    reasons = [*result.reasons, f"S_RA uses the policy's counterfactual sensitivity {sensitivity}"]
    return replace(result, score=score, status=status, components=comps, reasons=reasons)
