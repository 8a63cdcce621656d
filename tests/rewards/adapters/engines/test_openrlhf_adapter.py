"""rewards.adapters.engines.openrlhf called exactly as OpenRLHF calls a remote reward.

Mirrored engine source (OpenRLHF/OpenRLHF; PyPI ``openrlhf==0.11.2``):

* ``openrlhf/utils/agent.py`` ``SingleTurnAgentExecutor.__init__`` (lines 191-205): a ``--reward.remote_url``
  ending in ``.py`` is loaded with ``importlib.util.spec_from_file_location("reward_func", path)`` and its
  ``reward_func`` kept; ``execute`` (lines 285-304) builds ``query = decode(prompt_ids + action_ids,
  skip_special_tokens=False)``, calls ``_fetch_rewards_via_func([query], [prompt], [label])`` (lines 308-325:
  ``asyncio.to_thread(reward_func, queries[i:i+1], prompts[i:i+1], labels[i:i+1])``, one query per call) and takes
  ``rewards_info["rewards"]``, ``rewards_info.get("scores")`` (falling back to ``rewards``) and ``extra_logs``.
* ``openrlhf/trainer/ppo_utils/samples_generator.py`` ``_process_response_into_experience`` (lines 251-291):
  ``torch.tensor([reward_val])``, ``torch.tensor([score_val])`` and, per extra log, ``value.flatten()[0].item()``
  for a tensor, then ``torch.tensor([value])`` — every extra log must be numeric.
* ``examples/python/reward_func.py`` / ``math_reward_func.py`` (GitHub): ``reward_func(queries, prompts, labels,
  **kwargs)`` returns ``{"rewards": tensor[B], "scores": tensor[B], "extra_logs": {...}}``; the response is
  ``query[len(prompt):]``.
* Older OpenRLHF (``openrlhf/utils/remote_rm_utils.py``, GitHub commit 07c34b30) POSTs only ``{"query": queries}``
  and reads ``rewards`` — covered by the missing-prompt tests.

The slow test imports OpenRLHF 0.11.2's real ``SingleTurnAgentExecutor`` (``--no-deps`` plus aiohttp and
pylatexenc in a private ``--target`` directory, seconds to install) and runs its reward fetchers: the file form on
this module, the HTTP form on a ``rafs serve`` app on a free loopback port.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import rewards.adapters.engines.openrlhf as orl
from rewards.adapters.engines.openrlhf import LOG_KEYS, openrlhf_rewards, problem_from_prompt, split_response
from rewards.scoring.score import RAFSConfig, score_group

Q = "Tom has 3 boxes of 4 pens. How many pens does he have?"
CHATML = f"<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\n{Q}<|im_end|>\n<|im_start|>assistant\n"
LLAMA3 = ("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" + Q +
          "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
RIGHT = "Each box has 4 pens, so 3 * 4 = 12 pens.\n#### 12"
SUSPECT = "Each box has 4 pens, so 3 * 4 = 13 pens.\n#### 12"
WRONG = "Each box has 4 pens, so 3 * 4 = 13 pens.\n#### 13"


def _load_like_openrlhf():
    """SingleTurnAgentExecutor.__init__: spec_from_file_location("reward_func", path).reward_func."""
    path = orl.__file__
    assert path.endswith(".py")
    spec = importlib.util.spec_from_file_location("reward_func", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reward_func


async def _fetch_like_openrlhf(reward_func, queries, prompts, labels):
    """agent.py ``_fetch_rewards_via_func``: one to_thread call per query, gathered."""
    tasks = [asyncio.to_thread(reward_func, queries[i:i + 1], prompts[i:i + 1], labels[i:i + 1])
             for i in range(len(queries))]
    return await asyncio.gather(*tasks)


def _experience_info(rewards_info):
    """agent.py lines 294-302 + samples_generator.py lines 278-291: what OpenRLHF keeps from one result."""
    score_value = rewards_info.get("scores")
    if score_value is None:
        score_value = rewards_info.get("rewards")
    info = {"reward": torch.tensor([rewards_info.get("rewards")]), "score": torch.tensor([score_value])}
    for key, value in (rewards_info.get("extra_logs") or {}).items():
        if isinstance(value, torch.Tensor):
            value = value.flatten()[0].item()
        info[key] = torch.tensor([value])
    return info


def test_reward_func_file_form_one_query_per_call_like_openrlhf_0_11():
    fn = _load_like_openrlhf()
    queries = [CHATML + c + "<|im_end|>" for c in (RIGHT, SUSPECT, WRONG)]
    results = asyncio.run(_fetch_like_openrlhf(fn, queries, [CHATML] * 3, ["12"] * 3))
    infos = [_experience_info(r) for r in results]
    assert [float(i["reward"].flatten()[0]) for i in infos] == [1.0, 0.5, 0.0]
    assert [float(i["score"].flatten()[0]) for i in infos] == [1.0, 0.5, 0.0]
    for r in results:
        assert r["rewards"].dtype == torch.float32 and r["rewards"].shape == (1,)
        assert set(r["extra_logs"]) == set(LOG_KEYS)
    assert float(infos[1]["rafs_suspect"]) == 1.0 and float(infos[0]["rafs_accept"]) == 1.0
    assert float(infos[2]["rafs_correct"]) == 0.0


def test_reward_func_batch_form_groups_responses_of_the_same_prompt():
    """Whole-batch calls (older OpenRLHF, or a user's own loop): n responses of a prompt are one group."""
    fn = _load_like_openrlhf()
    other = "<|im_start|>user\nAnn has 5 bags of 6 apples. How many apples?<|im_end|>\n<|im_start|>assistant\n"
    responses = [RIGHT, SUSPECT, "5 * 6 = 30 apples.\n#### 30", WRONG, "5 + 6 = 11 apples.\n#### 11"]
    prompts = [CHATML, CHATML, other, CHATML, other]
    labels = ["12", "12", "30", "12", "30"]
    out = fn([p + r + "<|im_end|>" for p, r in zip(prompts, responses)], prompts, labels)
    assert out["rewards"].tolist() == [1.0, 0.5, 1.0, 0.0, 0.0]
    reward_config = RAFSConfig.coerce(None, use="reward")  # what every reward scores with
    tom = score_group(Q, [RIGHT, SUSPECT, WRONG], gold="12", config=reward_config)
    ann = score_group("Ann has 5 bags of 6 apples. How many apples?",
                      ["5 * 6 = 30 apples.\n#### 30", "5 + 6 = 11 apples.\n#### 11"], gold="30",
                      config=reward_config)
    expected = [tom[0], tom[1], ann[0], tom[2], ann[1]]
    assert out["extra_logs"]["rafs"].tolist() == pytest.approx([e.score / 100 for e in expected], abs=1e-5)


def test_without_labels_the_reward_is_rafs_over_100():
    out = openrlhf_rewards([CHATML + RIGHT], [CHATML], [None])
    assert out["rewards"] == out["extra_logs"]["rafs"] and out["rewards"][0] > 0.9
    assert out["extra_logs"]["rafs_correct"] == [0.0]
    empty = openrlhf_rewards([CHATML + RIGHT], [CHATML], [""])
    assert empty["rewards"] == out["rewards"]


def test_numeric_and_list_labels_are_ground_truths():
    out = openrlhf_rewards([CHATML + RIGHT] * 2, [CHATML] * 2, [12, ["12", "twelve"]])
    assert out["rewards"] == [1.0, 1.0]


def test_unscorable_responses_get_a_number_and_the_abstain_flag():
    out = openrlhf_rewards([CHATML, CHATML + "x" * 40_000], [CHATML, CHATML], [None, None])
    assert out["rewards"] == [0.0, 0.0] and out["extra_logs"]["rafs_abstain"] == [1.0, 1.0]


def test_length_mismatch_names_the_counts():
    with pytest.raises(ValueError, match="2 queries, 1 prompts and 2 labels"):
        openrlhf_rewards(["a", "b"], ["a"], [None, None])


@pytest.mark.parametrize("prompt,query,expected", [
    (CHATML, CHATML + RIGHT + "<|im_end|>", RIGHT),
    (LLAMA3, LLAMA3 + RIGHT + "<|eot_id|>", RIGHT),
    ("Q: 2+2?\n", "Q: 2+2?\n2 + 2 = 4</s>", "2 + 2 = 4"),
    # decode(encode(prompt)) can differ from prompt around special tokens: the common prefix decides
    (CHATML, CHATML.replace("<|im_end|>\n<|im_start|>assistant\n", "<|im_end|> \n<|im_start|>assistant\n") + RIGHT,
     RIGHT),
    (None, CHATML + RIGHT + "<|im_end|>", RIGHT),           # old remote_rm_fn: query only
    (None, "2 + 2 = 4", "2 + 2 = 4"),
])
def test_split_response(prompt, query, expected):
    assert split_response(query, prompt) == expected


def test_problem_from_prompt_takes_the_last_user_turn():
    assert problem_from_prompt(CHATML) == Q
    assert problem_from_prompt(LLAMA3) == Q
    assert problem_from_prompt("<s>[INST] What is 2+2? [/INST]") == "[INST] What is 2+2? [/INST]"
    assert problem_from_prompt("") is None and problem_from_prompt(None) is None


def test_the_prompt_grounds_the_trace():
    p = "<|im_start|>user\nA farm has 13 cows and 27 sheep. How many animals?<|im_end|>\n<|im_start|>assistant\n"
    c = "13 + 27 = 40 animals.\n#### 40"
    with_prompt = openrlhf_rewards([p + c], [p], [None])["extra_logs"]["rafs"][0]
    without = openrlhf_rewards([c], [None], [None])["extra_logs"]["rafs"][0]
    assert with_prompt > without


def test_module_imports_no_torch_until_reward_func_is_called():
    code = ("import sys, rewards.adapters.engines.openrlhf as m; "
            "out = m.openrlhf_rewards(['Add 2 and 3. 2 + 3 = 5'], ['Add 2 and 3. '], ['5']); "
            "assert 'torch' not in sys.modules, 'torch imported'; print(out['rewards'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[4])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[1.0]"


# --------------------------------------------------------------------------------------- the real OpenRLHF, slow

ORL_TARGET_PKGS = ["openrlhf==0.11.2", "aiohttp", "multidict", "yarl", "frozenlist", "aiosignal", "propcache",
                   "aiohappyeyeballs", "pylatexenc"]

_REAL_ORL_SCRIPT = r'''
import asyncio, json, sys
from openrlhf.utils.agent import SingleTurnAgentExecutor
spec = json.loads(sys.stdin.read())
out = {}
file_exec = SingleTurnAgentExecutor(spec["file"])
assert file_exec.reward_func is not None
res = asyncio.run(file_exec._fetch_rewards_via_func(spec["queries"], spec["prompts"], spec["labels"]))
out["file"] = [{"rewards": r["rewards"].tolist(), "scores": r["scores"].tolist(),
                "extra_logs": {k: v.tolist() for k, v in r["extra_logs"].items()}} for r in res]
http_exec = SingleTurnAgentExecutor(spec["url"])
assert http_exec.reward_func is None
out["http"] = asyncio.run(http_exec._fetch_rewards_via_http(spec["queries"], spec["prompts"], spec["labels"]))
print("RESULT " + json.dumps(out))
'''


def _load_test_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"_rafs_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_real_openrlhf_executor_fetches_rafs_rewards():
    from trainers.serve import create_app

    here = Path(__file__).resolve()
    _engine_site = _load_test_module(here.parent / "test_verl_adapter.py")._engine_site   # same cache dir
    running_server = _load_test_module(here.parents[3] / "trainers" / "test_serve.py").running_server

    site = _engine_site("openrlhf-0.11.2", ORL_TARGET_PKGS)
    queries = [CHATML + c + "<|im_end|>" for c in (RIGHT, SUSPECT, WRONG)]
    spec = {"file": orl.__file__, "queries": queries, "prompts": [CHATML] * 3, "labels": ["12"] * 3}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(Path(__file__).resolve().parents[4])])}
    with running_server(create_app(workers=1)) as base:
        spec["url"] = base + "/get_reward"
        proc = subprocess.run([sys.executable, "-c", _REAL_ORL_SCRIPT], input=json.dumps(spec), capture_output=True,
                              text=True, timeout=300, env=env)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, proc.stderr[-3000:]
    out = json.loads(line[len("RESULT "):])
    assert [r["rewards"] for r in out["file"]] == [[1.0], [0.5], [0.0]]       # one query per call
    assert len(out["http"]) == 1                                             # one server: one shard
    http = out["http"][0]
    assert http["rewards"] == [1.0, 0.5, 0.0] and http["scores"] == http["rewards"]
    in_process = openrlhf_rewards(queries, [CHATML] * 3, ["12"] * 3)
    assert http["extra_logs"] == in_process["extra_logs"]


def test_trailing_special_tokens_are_stripped_like_the_anchored_regex_in_linear_time():
    """The walk from the end removes what ``(?:\\s*SPECIAL)+\\s*\\Z`` removed (fuzzed over token fragments), without
    that regex's rescan of a token run from each start (1 s on 40,000 characters of ``<|im_end|>`` then text)."""
    import random
    import re
    import time

    from rewards.adapters.engines.openrlhf import _strip_trailing_specials  # noqa: PLC2701 (the unit under test)

    anchored = re.compile(r"(?:\s*(?:<\|[A-Za-z0-9_.:-]{1,40}\|>|</s>|<eos>|<end_of_turn>))+\s*\Z")
    pieces = ["<|im_end|>", "<|endoftext|>", "</s>", "<eos>", "<end_of_turn>", " ", "\n", "\u00a0", "x", "<|", "|>",
              "<|a b|>", "<|" + "a" * 40 + "|>", "<|" + "a" * 41 + "|>", "s>", "2 + 2 = 4", "<|<|im_end|>"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert _strip_trailing_specials(text).strip() == anchored.sub("", text).strip(), repr(text)
    start = time.process_time()
    assert split_response("<|im_end|>" * 4000 + "x" + "<|im_end|> " * 4000, None) == "<|im_end|>" * 4000 + "x"
    assert time.process_time() - start < 0.5  # about 10 ms on one core
