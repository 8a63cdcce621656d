"""rewards.adapters.engines.verl called exactly as verl calls a custom reward function.

Mirrored engine source (volcengine/verl; PyPI ``verl==0.9.1``, and the stored GitHub copies named below):

* ``verl/trainer/ppo/reward.py`` ``get_custom_reward_fn`` (0.9.1: lines 50-84): loads ``path``/``name`` with
  ``verl.utils.import_utils.load_extern_object`` (``pkg://module`` -> ``importlib.import_module``; a file path ->
  ``importlib.util.spec_from_file_location`` under a generated module name) and wraps it as
  ``partial(_call_with_kwargs, raw_fn, reward_kwargs)``, ``reward_kwargs`` taking precedence (lines 32-38).
  Before 0.7 (GitHub commit 03023e2a) the same with ``spec_from_file_location("custom_module", path)`` and
  ``raw_fn(*args, **kwargs, **reward_kwargs)``.
* ``verl/workers/reward_manager/naive.py`` ``NaiveRewardManager.__call__`` (0.9.1: lines 113-140): sets
  ``extra_info["num_turns"]`` and ``extra_info["rollout_reward_scores"]``, calls ``compute_score(data_source=,
  solution_str=, ground_truth=, extra_info=)``, takes ``score["score"]`` from a dict and appends every key to
  ``reward_extra_info``, and writes the reward into a float tensor (so it must be a number).
* ``verl/workers/reward_manager/batch.py`` ``BatchRewardManager.verify`` (0.9.1: lines 48-78): passes
  ``data_sources`` (a numpy object array), ``solution_strs``, ``ground_truths`` (a list) and ``extra_infos``
  (``non_tensor_batch["extra_info"]``, a numpy object array) plus ``**reward_kwargs``; ``__call__`` (lines 96-107)
  reads ``score["score"]`` per entry. The rollout ``uid`` stays in ``non_tensor_batch["uid"]``: it is not passed.
* ``verl/experimental/reward_loop/reward_loop.py`` (0.9.1: lines 365-369) builds its arrays from the *first*
  result's keys — every result must carry the same keys.
* ``examples/data_preprocess/gsm8k.py`` (GitHub commit 030a519a): ``extra_info = {"split", "index", "answer",
  "question"}``; ``ray_trainer`` repeats each prompt ``rollout.n`` times interleaved.

The slow test at the end imports verl 0.9.1's real reward managers (installed with ``--no-deps`` plus the handful of
modules their import chain needs into a private ``--target`` directory, about a minute the first time) and runs them
on ``compute_score``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import rewards.adapters.engines.verl as verl_adapter
from rewards.adapters.engines.verl import EXTRA_KEYS, compute_score
from rewards.scoring.score import RAFSConfig, score_group

Q = "Tom has 3 boxes of 4 pens. How many pens does he have?"
RIGHT = "Each box has 4 pens, so 3 * 4 = 12 pens.\n#### 12"
SUSPECT = "Each box has 4 pens, so 3 * 4 = 13 pens.\n#### 12"   # right answer on a false step
WRONG = "Each box has 4 pens, so 3 * 4 = 13 pens.\n#### 13"


def _call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
    """verl 0.9.1 ``verl/trainer/ppo/reward.py`` lines 32-38, verbatim in behaviour."""
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


def _load_like_verl(reward_kwargs=None, *, by_file=False):
    """``get_custom_reward_fn``: ``pkg://rewards.adapters.engines.verl`` or the file path, then the kwargs partial."""
    if by_file:
        path = verl_adapter.__file__
        spec = importlib.util.spec_from_file_location(f"custom_module_{hash(os.path.abspath(path))}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module("rewards.adapters.engines.verl")
    return partial(_call_with_kwargs, getattr(module, "compute_score"), dict(reward_kwargs or {}))


def _naive_call(fn, data_source, response_str, ground_truth, extra_info):
    """The body of NaiveRewardManager's loop for one item (naive.py 0.9.1 lines 119-140)."""
    extra_info = extra_info if extra_info is not None else {}
    extra_info["num_turns"] = None
    extra_info["rollout_reward_scores"] = {}
    score = fn(data_source=data_source, solution_str=response_str, ground_truth=ground_truth, extra_info=extra_info)
    reward = score["score"] if isinstance(score, dict) else score
    return float(reward), score


def test_per_sample_faithful_accuracy_rule_with_a_ground_truth():
    fn = _load_like_verl()
    rewards = [_naive_call(fn, "openai/gsm8k", c, "12", {"question": Q, "index": 0})[0]
               for c in (RIGHT, SUSPECT, WRONG)]
    assert rewards == [1.0, 0.5, 0.0]


def test_per_sample_dict_carries_the_logged_fields():
    reward, d = _naive_call(_load_like_verl(), "openai/gsm8k", SUSPECT, "12", {"question": Q})
    assert list(d) == list(EXTRA_KEYS)
    assert d["score"] == reward == 0.5
    assert d["status"] == "review" and d["suspect_step"] == 0 and d["correct"] is True and d["acc"] == 1.0
    assert d["failure_type"] == "silent_failure"
    assert 0 <= d["rafs"] <= 100 and d["P_R"] is not None
    assert d["C_A"] is None and d["D_R"] is None          # one rollout per call: no group components


def test_without_ground_truth_the_reward_is_rafs_over_100():
    reward, d = _naive_call(_load_like_verl(), "openai/gsm8k", RIGHT, None, {"question": Q})
    assert d["correct"] is None and d["acc"] is None
    assert reward == pytest.approx(d["rafs"] / 100, abs=1e-6) and reward > 0.9


def test_every_result_has_the_same_keys_and_a_numeric_score():
    """reward_loop.py builds arrays from the first item's keys; the manager writes score into a float tensor."""
    fn = _load_like_verl()
    outs = [_naive_call(fn, "s", c, gt, info)[1] for c, gt, info in
            [(RIGHT, "12", {"question": Q}), ("", "12", {}), ("x" * 40_000, None, None), (WRONG, None, {}),
             ([{"role": "assistant", "content": RIGHT}], "12", {"question": Q})]]
    assert all(list(o) == list(EXTRA_KEYS) for o in outs)
    assert all(isinstance(o["score"], float) for o in outs)
    assert outs[1]["status"] == "abstain" and outs[1]["score"] == 0.0        # empty completion
    assert outs[2]["status"] == "abstain" and outs[2]["score"] == 0.0        # oversized, no ground truth
    assert outs[4]["score"] == 1.0                                           # chat-message completion


def test_the_question_in_extra_info_grounds_the_trace():
    q = "A farm has 13 cows and 27 sheep. How many animals?"
    c = "13 + 27 = 40 animals.\n#### 40"
    with_q = compute_score("s", c, "40", extra_info={"question": q})
    without = compute_score("s", c, "40", extra_info={"index": 1})
    assert with_q["score"] == 1.0 and with_q["status"] == "accept"
    # without the problem nothing shows that 13 and 27 are the problem's quantities: the answer is not derived from
    # the problem (no support), so a correct answer earns the unverified credit, never the full one
    assert without["score"] == 0.5 and without["suspect_step"] is None


def test_parquet_shaped_values_numpy_ground_truth_and_message_arrays():
    """verl reads its data from parquet: numbers arrive as numpy scalars, lists as numpy object arrays."""
    info = {"index": np.int64(4), "prompt": np.array([{"role": "user", "content": Q}], dtype=object)}
    d = compute_score("openai/gsm8k", RIGHT, np.int64(12), info)
    assert d["score"] == 1.0 and d["correct"] is True
    assert compute_score("s", RIGHT, np.array(["12", "twelve"]), {"question": Q})["score"] == 1.0
    assert compute_score("s", RIGHT, 12.0, {"question": Q})["score"] == 1.0
    assert compute_score("s", RIGHT, 12.0, None)["score"] == 0.5  # no question: nothing grounds the derivation


def test_reward_kwargs_reach_the_function_like_verl_merges_them():
    as_float = _load_like_verl({"return_dict": False})
    assert _naive_call(as_float, "s", RIGHT, "12", {"question": Q})[1] == 1.0
    rafs_mode = _load_like_verl({"mode": "rafs", "rafs_config": {"tau_accept": 99.5}})
    _, d = _naive_call(rafs_mode, "s", RIGHT, "12", {"question": Q})
    assert d["score"] == pytest.approx(d["rafs"] / 100, abs=1e-6)
    assert d["status"] == "review"                         # the stricter tau_accept took effect
    with pytest.raises(ValueError, match="mode='bogus'"):
        _load_like_verl({"mode": "bogus"})(data_source="s", solution_str=RIGHT, ground_truth="12", extra_info={})
    with pytest.raises(ValueError, match="unknown RAFS config key"):
        _load_like_verl({"rafs_config": {"tau": 1}})(data_source="s", solution_str=RIGHT, ground_truth="12")


def test_loading_by_file_path_under_a_foreign_module_name_works():
    fn = _load_like_verl(by_file=True)
    assert _naive_call(fn, "s", RIGHT, "12", {"question": Q})[0] == 1.0


def test_positional_pickled_call_like_prime_manager():
    """prime.py 0.9.1 lines 31-35 and 81-88: ``partial(evaluation_func, task, completion, reference, extra_info)``
    run in a ProcessPoolExecutor (so it is pickled), and the result must be a number (``float(result[0])``
    otherwise) — hence ``return_dict=False`` for this manager."""
    import pickle

    fn = _load_like_verl({"return_dict": False})
    job = pickle.loads(pickle.dumps(partial(fn, "openai/gsm8k", SUSPECT, "12", {"question": Q})))
    assert job() == 0.5


def _batch_inputs():
    """Two prompts x 3 rollouts, repeated interleaved as ray_trainer does; extra_info from gsm8k.py."""
    prompts = [("Tom has 3 boxes of 4 pens. How many pens?", "12", [RIGHT, SUSPECT, WRONG]),
               ("Ann has 5 bags of 6 apples. How many apples?", "30",
                ["5 * 6 = 30 apples.\n#### 30", "5 * 6 = 30 apples.\n#### 30", "5 + 6 = 11 apples.\n#### 11"])]
    data_sources, solution_strs, ground_truths, extras = [], [], [], []
    for idx, (q, gt, rollouts) in enumerate(prompts):
        info = {"split": "train", "index": idx, "answer": f"#### {gt}", "question": q}
        for r in rollouts:
            data_sources.append("openai/gsm8k")
            solution_strs.append(r)
            ground_truths.append(gt)
            extras.append(info)        # np.repeat on an object array repeats the same dict object
    return (np.array(data_sources, dtype=object), solution_strs, ground_truths, np.array(extras, dtype=object),
            prompts)


def test_batched_form_scores_each_prompt_group_together_in_order():
    data_sources, solution_strs, ground_truths, extras, prompts = _batch_inputs()
    for e in extras:                                     # batch.py 0.9.1 line 66
        e["rollout_reward_scores"] = {}
    fn = _load_like_verl()
    scores = fn(data_sources=data_sources, solution_strs=solution_strs, ground_truths=ground_truths,
                extra_infos=extras)
    assert isinstance(scores, list) and len(scores) == 6
    assert [s["score"] for s in scores[:3]] == [1.0, 0.5, 0.0]
    assert [s["score"] for s in scores[3:]] == [1.0, 1.0, 0.0]
    for k, (q, gt, rollouts) in enumerate(prompts):
        expected = score_group(q, rollouts, gold=gt, config=RAFSConfig.coerce(None, use="reward"))
        got = scores[3 * k: 3 * k + 3]
        assert [g["rafs"] for g in got] == [None if e.score is None else round(e.score, 4) for e in expected]
        assert all(g["C_A"] is not None and g["C_A"] == pytest.approx(expected[0].components["C_A"]) for g in got)


def test_batched_form_groups_by_uid_then_index_then_question():
    c = ["2 + 3 = 5\n#### 5", "2 + 3 = 5\n#### 5"]
    by_uid = compute_score(data_sources=["s", "s"], solution_strs=c, ground_truths=[None, None],
                           extra_infos=[{"uid": "u1"}, {"uid": "u1"}])
    by_question = compute_score(data_sources=["s", "s"], solution_strs=c, ground_truths=["5", "5"],
                                extra_infos=[{"question": "2 cats, 3 dogs?"}] * 2)
    none = compute_score(data_sources=["s", "s"], solution_strs=c, ground_truths=["5", "5"],
                         extra_infos=[None, None])
    split = compute_score(data_sources=["a", "b"], solution_strs=c, ground_truths=["5", "5"],
                          extra_infos=[{"index": 0}, {"index": 0}])   # same index, different datasets
    assert by_uid[0]["C_A"] == 1.0 and by_question[0]["C_A"] == 1.0
    assert none[0]["C_A"] is None and split[0]["C_A"] is None


def test_batched_form_with_mismatched_lengths_names_the_fields():
    with pytest.raises(ValueError, match="different lengths.*'ground_truths': 1"):
        compute_score(data_sources=["s", "s"], solution_strs=[RIGHT, RIGHT], ground_truths=["12"],
                      extra_infos=[{}, {}])


def test_batched_form_matches_per_sample_form_for_singletons():
    sols = [RIGHT, SUSPECT, WRONG, ""]
    batched = compute_score(data_sources=["s"] * 4, solution_strs=sols, ground_truths=["12"] * 4,
                            extra_infos=[None] * 4)
    single = [compute_score("s", s, "12", None) for s in sols]
    assert batched == single


# ------------------------------------------------------------------------------------------- the real verl, slow

VERL_PIN = "verl==0.9.1"
VERL_TARGET_PKGS = [VERL_PIN, "ray", "tensordict", "codetiming", "msgpack", "pyvers", "omegaconf"]

_REAL_VERL_SCRIPT = r'''
import json, sys
import numpy as np, torch
from verl import DataProto
from verl.workers.reward_manager.batch import BatchRewardManager
from verl.workers.reward_manager.naive import NaiveRewardManager
from verl.trainer.ppo.reward import get_custom_reward_fn
from omegaconf import OmegaConf

class ByteTokenizer:
    """decode(ids) -> text, one byte per id (0 = padding)."""
    def decode(self, ids, skip_special_tokens=True):
        return bytes(int(i) for i in ids if int(i) != 0).decode("utf-8")

spec = json.loads(sys.stdin.read())
P, R = 64, 96
n = len(spec["responses"])
prompts = torch.zeros(n, P, dtype=torch.long)
responses = torch.zeros(n, R, dtype=torch.long)
mask = torch.zeros(n, P + R, dtype=torch.long)
for i, (p, r) in enumerate(zip(spec["prompts"], spec["responses"])):
    pb, rb = list(p.encode()), list(r.encode())
    prompts[i, P - len(pb):] = torch.tensor(pb); mask[i, P - len(pb):P] = 1      # left-padded prompt
    responses[i, :len(rb)] = torch.tensor(rb); mask[i, P:P + len(rb)] = 1        # right-padded response
def data():
    extras = np.empty(n, dtype=object)
    for i, e in enumerate(spec["extra_infos"]):
        extras[i] = dict(e)
    return DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
        non_tensors={"data_source": np.array(["openai/gsm8k"] * n, dtype=object),
                     "reward_model": np.array([{"ground_truth": g, "style": "rule"} for g in spec["gts"]],
                                              dtype=object),
                     "extra_info": extras})
cfg = OmegaConf.create({"reward": {"custom_reward_function": {"path": spec["path"], "name": "compute_score",
                                                              "reward_kwargs": {}}}})
fn = get_custom_reward_fn(cfg)
out = {}
for name, mgr in (("naive", NaiveRewardManager(ByteTokenizer(), 0, fn)),
                  ("batch", BatchRewardManager(ByteTokenizer(), 0, fn))):
    res = mgr(data(), return_dict=True)
    t = res["reward_tensor"]
    lengths = mask[:, P:].sum(-1)
    out[name] = {"rewards": [float(t[i, lengths[i] - 1]) for i in range(n)],
                 "nonzero_elsewhere": float(t.abs().sum() - sum(abs(float(t[i, lengths[i] - 1])) for i in range(n))),
                 "extra": {k: list(v) for k, v in res["reward_extra_info"].items()}}
print("RESULT " + json.dumps(out, default=str))
'''


def _engine_site(name: str, packages: list[str]) -> Path:
    """A ``pip install --no-deps --target`` directory layered over this venv (cached between runs)."""
    root = Path(os.environ.get("RAFS_ENGINE_SITE_DIR", Path.home() / ".cache" / "rafs" / "engine-sites"))
    site = root / name
    stamp = site / ".complete"
    if not stamp.exists():
        constraints = Path(__file__).resolve().parents[4] / "constraints.txt"
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), *packages]
        if constraints.exists():
            cmd[4:4] = ["-c", str(constraints)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            pytest.skip(f"could not install {packages[0]} into {site}: {proc.stderr.strip()[-400:]}")
        stamp.write_text("ok\n")
    return site


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_real_verl_reward_managers_run_compute_score():
    site = _engine_site("verl-0.9.1", VERL_TARGET_PKGS)
    spec = {"path": "pkg://rewards.adapters.engines.verl",
            "prompts": ["Tom has 3 boxes of 4 pens?"] * 3 + ["Ann: 5 bags of 6?"] * 3,
            "responses": [RIGHT, SUSPECT, WRONG, "5 * 6 = 30\n#### 30", "5 * 6 = 30\n#### 30", "5 + 6 = 11\n#### 11"],
            "gts": ["12"] * 3 + ["30"] * 3,
            "extra_infos": [{"index": 0, "question": Q}] * 3 + [{"index": 1, "question": "Ann has 5 bags of 6."}] * 3}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(Path(__file__).resolve().parents[4])]),
           "RAY_DISABLE_IMPORT_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-c", _REAL_VERL_SCRIPT], input=json.dumps(spec), capture_output=True,
                          text=True, timeout=300, env=env)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, proc.stderr[-3000:]
    out = json.loads(line[len("RESULT "):])
    n = len(spec["responses"])
    expected = {
        "naive": [compute_score("openai/gsm8k", r, g, dict(e)) for r, g, e in
                  zip(spec["responses"], spec["gts"], spec["extra_infos"])],
        "batch": compute_score(data_sources=["openai/gsm8k"] * n, solution_strs=spec["responses"],
                               ground_truths=spec["gts"], extra_infos=[dict(e) for e in spec["extra_infos"]]),
    }
    for name in ("naive", "batch"):
        assert out[name]["rewards"] == [1.0, 0.5, 0.0, 1.0, 1.0, 0.0], name
        assert out[name]["nonzero_elsewhere"] == 0.0                 # the reward sits on the last response token
        assert set(EXTRA_KEYS) <= set(out[name]["extra"]), name
        assert out[name]["extra"]["rafs"] == [e["rafs"] for e in expected[name]], name
        assert out[name]["extra"]["status"] == [e["status"] for e in expected[name]], name
    assert out["naive"]["extra"]["status"][0] == "accept"
    assert all(v in (None, "None") for v in out["naive"]["extra"]["C_A"])     # per sample: no group
    assert all(v not in (None, "None") for v in out["batch"]["extra"]["C_A"])  # batched: grouped by index


@pytest.mark.parametrize("module", ["rewards.adapters.engines.core", "rewards.adapters.engines.verl", "rewards.adapters.engines.openrlhf"])
def test_docstring_examples_run(module):
    import doctest

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
