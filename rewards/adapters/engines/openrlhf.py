"""RAFS as an OpenRLHF remote reward: the ``reward_func`` file form and the ``/get_reward`` HTTP payload.

OpenRLHF (OpenRLHF/OpenRLHF) takes a remote reward through ``--reward.remote_url`` (``--remote_rm_url`` before
0.10). ``openrlhf/utils/agent.py`` (``SingleTurnAgentExecutor``) decides by the value:

* a path ending in ``.py`` — the file is loaded with ``importlib`` and its ``reward_func(queries, prompts,
  labels)`` is called in a thread (``_fetch_rewards_via_func``); it returns
  ``{"rewards": tensor, "scores": tensor, "extra_logs": {name: tensor}}`` (``examples/python/reward_func.py``).
  Pass this very file::

      --reward.remote_url $(python -c 'import rewards.adapters.engines.openrlhf as m; print(m.__file__)')

* an ``http://`` URL — ``POST {"query": [...], "prompts": [...], "labels": [...]}`` (``_fetch_rewards_via_http``)
  answered by ``{"rewards": [...], "scores": [...], "extra_logs": {name: [...]}}`` in order: ``rafs serve``
  (:mod:`trainers.serve`) speaks it on ``/get_reward``.

``queries`` are prompt + response decoded *with* special tokens; the response is the part after ``prompts[i]``
(:func:`split_response`), trailing end-of-turn tokens dropped. The problem text is the last user turn of the
chat-templated prompt (:func:`problem_from_prompt`: ChatML and Llama-3 templates, else the prompt without special
tokens). ``labels`` (``--data.label_key``) are the ground truths: with one, the reward is faithful accuracy, without
(``None`` or empty) RAFS/100 (:mod:`rewards.adapters.engines.core`). ``scores`` (used by OpenRLHF's dynamic filtering)
equal ``rewards``. Responses to the same prompt (and label) within one call are scored as a group (C_A, D_R);
OpenRLHF 0.11 sends one query per call, so there every response is scored alone.

``extra_logs`` (numbers only — OpenRLHF turns each value into a tensor): ``rafs`` (RAFS/100, 0 when abstaining),
``rafs_abstain``, ``rafs_accept``, ``rafs_suspect`` (a suspect step), ``rafs_correct`` (0 without a label).

>>> prompt = "<|im_start|>user\\nTom has 3 boxes of 4 pens. How many pens?<|im_end|>\\n<|im_start|>assistant\\n"
>>> out = openrlhf_rewards([prompt + "3 * 4 = 12 pens.\\n#### 12<|im_end|>"], [prompt], ["12"])
>>> out["rewards"], out["extra_logs"]["rafs_accept"]
([1.0], [1.0])
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from rewards.adapters.engines.core import Item, coerce_gold, score_items

__all__ = ["reward_func", "openrlhf_rewards", "split_response", "problem_from_prompt", "LOG_KEYS"]

LOG_KEYS = ("rafs", "rafs_abstain", "rafs_accept", "rafs_suspect", "rafs_correct")
_MAX_PROMPT_SCAN = 64_000
_SPECIAL_TOKEN = re.compile(r"<\|[A-Za-z0-9_.:-]{1,40}\|>")
_FIXED_SPECIALS = ("</s>", "<eos>", "<end_of_turn>")


def _strip_trailing_specials(text: str) -> str:
    """``text`` without the special tokens (``<|im_end|>``, ``</s>``, ``<eos>``, ``<end_of_turn>``) and blanks at its
    end, walked back from the end in linear time (a regex anchored at ``\\Z`` and run by ``sub`` rescanned a run of
    tokens from each of its starts: 1 s on 40,000 characters of ``<|im_end|>``).

    >>> _strip_trailing_specials("2 + 2 = 4<|im_end|>\\n<|endoftext|> ")
    '2 + 2 = 4'
    """
    end = len(text)
    while True:
        while end and text[end - 1].isspace():  # what the regex's \s matches (Py_UNICODE_ISSPACE)
            end -= 1
        fixed = next((t for t in _FIXED_SPECIALS if text.endswith(t, 0, end)), None)
        if fixed is not None:
            end -= len(fixed)
            continue
        start = text.rfind("<|", max(0, end - 44), end) if text.endswith("|>", 0, end) else -1
        if start < 0 or _SPECIAL_TOKEN.fullmatch(text, start, end) is None:
            return text[:end]
        end = start
_ANY_SPECIAL = re.compile(r"<\|[A-Za-z0-9_.:-]{1,40}\|>|</?s>|<bos>|<eos>|<(?:start|end)_of_turn>")
_CHATML_USER = re.compile(r"<\|im_start\|>user\s*\n(.*?)(?:<\|im_end\|>|\Z)", re.S)
_LLAMA3_USER = re.compile(r"<\|start_header_id\|>user<\|end_header_id\|>\s*(.*?)(?:<\|eot_id\|>|\Z)", re.S)
_ASSISTANT_MARKERS = ("<|im_start|>assistant\n", "<|start_header_id|>assistant<|end_header_id|>\n\n",
                      "<|assistant|>\n", "Assistant:")


def _align_ignoring_space(query: str, prompt: str) -> int | None:
    """Where ``prompt`` ends inside ``query`` when the two differ only in whitespace, else ``None``."""
    i = j = 0
    while j < len(prompt):
        if i < len(query) and query[i] == prompt[j]:
            i, j = i + 1, j + 1
        elif i < len(query) and query[i].isspace():
            i += 1
        elif prompt[j].isspace():
            j += 1
        else:
            return None
    return i


def split_response(query: str, prompt: str | None) -> str:
    """The response inside an OpenRLHF query (prompt + response), trailing special tokens removed.

    The prompt is cut off as a prefix; failing that (``decode(encode(prompt))`` may differ from ``prompt`` in
    whitespace around special tokens) as a prefix up to whitespace, then after the last assistant header
    (ChatML, Llama 3, ``Assistant:``); with none of these the whole query is the response.

    >>> split_response("<|im_start|>user\\nQ<|im_end|>\\n<|im_start|>assistant\\n2 + 2 = 4<|im_end|>",
    ...                "<|im_start|>user\\nQ<|im_end|>\\n<|im_start|>assistant\\n")
    '2 + 2 = 4'
    """
    query = "" if query is None else str(query)
    response = None
    if prompt:
        prompt = str(prompt)
        if query.startswith(prompt):
            response = query[len(prompt):]
        else:
            end = _align_ignoring_space(query, prompt)
            if end is not None:
                response = query[end:]
    if response is None:
        cut = max((query.rfind(m) + len(m) if query.rfind(m) >= 0 else -1) for m in _ASSISTANT_MARKERS)
        response = query[cut:] if cut >= 0 else query
    return _strip_trailing_specials(response).strip()


def problem_from_prompt(prompt: str | None) -> str | None:
    """The problem text in a chat-templated prompt: the last user turn (ChatML, Llama 3), else the prompt with
    special tokens removed; ``None`` for an empty prompt.

    >>> problem_from_prompt("<|im_start|>system\\nBe brief.<|im_end|>\\n<|im_start|>user\\nWhat is 2+2?<|im_end|>")
    'What is 2+2?'
    """
    if not prompt:
        return None
    text = str(prompt)[-_MAX_PROMPT_SCAN:]
    for pattern in (_CHATML_USER, _LLAMA3_USER):
        turns = pattern.findall(text)
        if turns:
            return turns[-1].strip() or None
    return _ANY_SPECIAL.sub("", text).strip() or None


def openrlhf_rewards(queries: Sequence[Any], prompts: Sequence[Any] | None = None,
                     labels: Sequence[Any] | None = None, *, mode: str = "auto",
                     rafs_config: Any = None) -> dict[str, Any]:
    """Score an OpenRLHF batch; returns plain lists: ``{"rewards", "scores", "extra_logs": {key: list}}``.

    Raises ``ValueError`` when ``prompts``/``labels`` are given with a length different from ``queries``.
    """
    queries = list(queries)
    n = len(queries)
    prompts = [None] * n if prompts is None else list(prompts)
    labels = [None] * n if labels is None else list(labels)
    if len(prompts) != n or len(labels) != n:
        raise ValueError(f"OpenRLHF payload has {n} queries, {len(prompts)} prompts and {len(labels)} labels; "
                         "send one prompt and one label (or null) per query.")
    items = []
    for q, p, lab in zip(queries, prompts, labels):
        gold = coerce_gold(lab)
        items.append(Item(problem_from_prompt(p), split_response(q, p), gold,
                          None if p is None else ("prompt", str(p))))
    rows = score_items(items, config=rafs_config, mode=mode)
    rewards = [r["reward"] for r in rows]
    logs = {
        "rafs": [0.0 if r["rafs"] is None else round(r["rafs"] / 100.0, 6) for r in rows],
        "rafs_abstain": [float(r["status"] == "abstain") for r in rows],
        "rafs_accept": [float(r["status"] == "accept") for r in rows],
        "rafs_suspect": [float(r["suspect_step"] is not None) for r in rows],
        "rafs_correct": [float(bool(r["correct"])) for r in rows],
    }
    return {"rewards": rewards, "scores": list(rewards), "extra_logs": logs}


def reward_func(queries, prompts, labels, **kwargs):
    """OpenRLHF's ``reward_func(queries, prompts, labels)``: the same as :func:`openrlhf_rewards` with float32
    tensors (``rewards``, ``scores`` and each ``extra_logs`` value have shape ``[len(queries)]``).

    Keyword options (``mode``, ``rafs_config``) are taken; anything else OpenRLHF may add is ignored.
    """
    import torch

    out = openrlhf_rewards(queries, prompts, labels, mode=kwargs.get("mode", "auto"),
                           rafs_config=kwargs.get("rafs_config"))

    def t(values):
        return torch.tensor(values, dtype=torch.float32)

    return {"rewards": t(out["rewards"]), "scores": t(out["scores"]),
            "extra_logs": {k: t(v) for k, v in out["extra_logs"].items()}}
