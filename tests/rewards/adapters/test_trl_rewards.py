"""The RAFS reward functions under TRL 1.16's calling convention.

Contracts, not exact scores: the scorer's internals improve over time, so the tests compare completions
(faithful > false equation), check shapes, None-on-garbage, pickling, thread safety and the logging hooks.
"""

from __future__ import annotations

import math
import pickle
from concurrent.futures import ThreadPoolExecutor

import pytest

from rewards.adapters import trl_rewards as T
from rewards.scoring.score import RAFSConfig, score_group
from rewards.adapters.trl_rewards import (
    REWARD_FUNCS,
    faithful_accuracy_reward,
    get_faithful_accuracy_reward,
    get_rafs_reward,
    get_reward_funcs,
    rafs_consensus_reward,
    rafs_reward,
    rafs_stability_reward,
    rafs_step_validity_reward,
    rafs_support_reward,
)

PROBLEM = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
           "How many clips did Natalia sell altogether in April and May?")
GOOD = "Natalia sold 48/2 = 24 clips in May.\nNatalia sold 48+24 = 72 clips altogether in April and May.\n#### 72"
# the right final answer resting on a false equation: a silent failure
SILENT = "Natalia sold 48/2 = 25 clips in May.\nNatalia sold 48+24 = 72 clips altogether in April and May.\n#### 72"
WRONG = "Natalia sold 48/2 = 24 clips in May.\nNatalia sold 48+24 = 72 clips in total.\nSo the answer is 70.\n#### 70"
GOLD = "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips.\n#### 72"

PROBLEM_B = "Weng earns $12 an hour for babysitting. Yesterday, she did 50 minutes of babysitting. How much did she earn?"
B1 = "Weng earns 12/60 = 0.2 per minute.\nWorking 50 minutes, she earned 0.2 x 50 = 10.\n#### 10"
B2 = "Weng earns 12/60 = 0.2 per minute.\nIn 50 minutes she earned 0.2 * 50 = 10 dollars.\n#### 10"
B3 = "Weng earns 12 * 50 = 600.\n#### 600"
B4 = "Weng earns 12/60 = 0.2 per minute, so 50 * 0.2 = 10.\nThe answer is 10."

ALL_NAMES = ["rafs", "faithful_accuracy", "rafs_step_validity", "rafs_support", "rafs_consensus", "rafs_stability"]
GARBAGE = ["", "   ", "no numbers at all, just words", "\x00\x01\x02", "x" * 40_000, "#### ", "<think></think>",
           "\\boxed{", "1" * 5000]


def _msgs(text: str) -> list[dict]:
    return [{"role": "assistant", "content": text}]


def _batch():
    """Two GRPO groups of 4, flattened as TRL passes them: each prompt repeated num_generations times."""
    prompts = [PROBLEM] * 4 + [PROBLEM_B] * 4
    completions = [GOOD, SILENT, WRONG, GOOD, B1, B2, B3, B4]
    answers = [GOLD] * 4 + ["#### 10"] * 4
    return prompts, completions, answers


def _same(a, b) -> bool:
    return all((x is None and y is None) or (x is not None and y is not None and math.isclose(x, y))
               for x, y in zip(a, b, strict=True))


# -- calling convention ---------------------------------------------------------------------------------------------

def test_plain_strings_return_one_float_or_none_per_completion_in_unit_interval():
    prompts, completions, answers = _batch()
    for func in get_reward_funcs(ALL_NAMES):
        out = func(prompts=prompts, completions=completions, completion_ids=[[1, 2]] * 8, answer=answers,
                   trainer_state=object())
        assert isinstance(out, list) and len(out) == len(completions), func.__name__
        assert all(v is None or (isinstance(v, float) and 0.0 <= v <= 1.0) for v in out), (func.__name__, out)


def test_faithful_completion_outscores_false_equation():
    prompts = [PROBLEM] * 2
    r = rafs_reward(prompts, [GOOD, SILENT])
    assert r[0] is not None and r[1] is not None
    assert r[0] > r[1]
    p = rafs_step_validity_reward(prompts, [GOOD, SILENT])
    assert p[0] > p[1]


def test_conversational_messages_equal_plain_strings():
    prompts, completions, answers = _batch()
    conv_prompts = [[{"role": "system", "content": "Think step by step."}, {"role": "user", "content": p}]
                    for p in prompts]
    conv_completions = [_msgs(c) for c in completions]
    for func in get_reward_funcs(ALL_NAMES):
        plain = func(prompts, completions, answer=answers)
        conv = func(conv_prompts, conv_completions, answer=answers)
        assert _same(plain, conv), func.__name__


def test_reasoning_content_and_think_blocks_are_read():
    prompts = [PROBLEM] * 3
    think = [{"role": "assistant", "content": "<think>48/2 = 25 clips in May.\n48+24 = 72 in total.</think>\n#### 72"}]
    field = [{"role": "assistant", "reasoning_content": "48/2 = 25 clips in May.\n48+24 = 72 in total.",
              "content": "#### 72"}]
    out = faithful_accuracy_reward(prompts, [GOOD, think, field], answer=["72"] * 3)
    assert out == [1.0, 0.5, 0.5]  # the false step inside the reasoning is found in both shapes


# -- gold columns and faithful accuracy --------------------------------------------------------------------------------

def test_faithful_accuracy_one_half_zero():
    prompts = [PROBLEM] * 3
    assert faithful_accuracy_reward(prompts, [GOOD, SILENT, WRONG], answer=[GOLD] * 3) == [1.0, 0.5, 0.0]


def test_faithful_accuracy_reads_solution_column_and_custom_column():
    prompts = [PROBLEM] * 3
    assert faithful_accuracy_reward(prompts, [GOOD, SILENT, WRONG], solution=["72"] * 3) == [1.0, 0.5, 0.0]
    custom = get_faithful_accuracy_reward(gold_column="target")
    assert custom(prompts, [GOOD, SILENT, WRONG], target=["72"] * 3, answer=["0"] * 3) == [1.0, 0.5, 0.0]


def test_faithful_accuracy_unfaithful_credit_is_configurable():
    reward = get_faithful_accuracy_reward(unfaithful_credit=0.2)
    assert reward([PROBLEM] * 2, [GOOD, SILENT], answer=["72", "72"]) == [1.0, 0.2]
    with pytest.raises(ValueError, match="unfaithful_credit"):
        get_faithful_accuracy_reward(unfaithful_credit=1.5)


def test_faithful_accuracy_min_rafs_withholds_credit_from_low_scores():
    reward = get_faithful_accuracy_reward(min_rafs=100.0)  # nothing reaches 100: every correct answer gets 0.5
    assert reward([PROBLEM], [GOOD], answer=["72"]) == [0.5]


def test_faithful_accuracy_none_without_usable_gold(caplog):
    prompts = [PROBLEM] * 3
    assert faithful_accuracy_reward(prompts, [GOOD] * 3) == [None, None, None]
    assert faithful_accuracy_reward(prompts, [GOOD] * 3, answer=[None, "", "9" * 300]) == [None, None, None]
    strict = get_faithful_accuracy_reward(strict=True)
    with pytest.raises(ValueError, match="gold column"):
        strict(prompts, [GOOD] * 3)


def test_gold_column_length_mismatch_is_an_error_naming_the_column():
    with pytest.raises(ValueError, match="'answer'"):
        faithful_accuracy_reward([PROBLEM] * 2, [GOOD, GOOD], answer=["72"])
    with pytest.raises(ValueError, match="prompts"):
        rafs_reward([PROBLEM], [GOOD, GOOD])


# -- garbage ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("garbage", GARBAGE + [None, 12345, {"role": "assistant"}, [{"content": None}], [[]], b"\xff"])
def test_garbage_is_none_never_an_exception(garbage):
    for func in get_reward_funcs(ALL_NAMES):
        out = func([PROBLEM], [garbage], answer=["72"])
        assert len(out) == 1
        if func.__name__ in ("rafs_consensus_reward", "rafs_stability_reward"):
            assert out == [None], (func.__name__, repr(garbage)[:40])  # undefined for one completion
        else:
            # nothing to check counts as no support (missing_evidence="no_support"): 0, never an exception; and for
            # faithful_accuracy there is no correct answer in garbage: wrong
            assert out == [0.0], (func.__name__, repr(garbage)[:40])


def test_strict_raises_on_unscorable():
    strict = get_rafs_reward(strict=True)
    with pytest.raises(ValueError, match="unscorable"):
        strict([PROBLEM], [""])
    assert strict([PROBLEM], [GOOD])[0] is not None


def test_a_garbage_row_does_not_change_the_others():
    prompts = [PROBLEM] * 2
    alone = rafs_step_validity_reward([PROBLEM], [GOOD])
    mixed = rafs_step_validity_reward(prompts, [GOOD, "x" * 40_000])
    assert mixed[0] == pytest.approx(alone[0]) and mixed[1] == 0.0


# -- grouping ---------------------------------------------------------------------------------------------------------

def test_group_components_use_each_prompt_group_only():
    prompts, completions, answers = _batch()
    consensus = rafs_consensus_reward(prompts, completions, answer=answers)
    stability = rafs_stability_reward(prompts, completions, answer=answers)
    group_a = score_group(PROBLEM, completions[:4], gold=GOLD)
    group_b = score_group(PROBLEM_B, completions[4:], gold="#### 10")
    for got, res in zip(consensus, group_a + group_b):
        assert got == pytest.approx(res.components["C_A"])
    for got, res in zip(stability, group_a + group_b):
        assert (got is None and res.components["D_R"] is None) or got == pytest.approx(res.components["D_R"])
    # group A has answers 72, 72, 70, 72 and group B 10, 10, 600, 10: same shape, same consensus; a
    # batch that mixed the two groups would see 8 answers and a different value
    assert consensus[0] == pytest.approx(consensus[4]) and consensus[0] < 1.0
    unanimous = rafs_consensus_reward([PROBLEM] * 3, [GOOD] * 3)
    assert unanimous == [pytest.approx(1.0)] * 3


def test_single_completion_has_no_consensus():
    assert rafs_consensus_reward([PROBLEM], [GOOD]) == [None]
    assert rafs_reward([PROBLEM], [GOOD])[0] is not None


def test_interleaved_prompts_group_by_identity():
    prompts, completions, answers = _batch()
    order = [0, 4, 1, 5, 2, 6, 3, 7]
    inter = rafs_consensus_reward([prompts[i] for i in order], [completions[i] for i in order],
                                  answer=[answers[i] for i in order])
    grouped = rafs_consensus_reward(prompts, completions, answer=answers)
    assert _same(inter, [grouped[i] for i in order])


# -- registry, names, pickling ----------------------------------------------------------------------------------------

def test_registry_names_and_stable_dunder_names():
    expected = {"rafs": "rafs_reward", "faithful_accuracy": "faithful_accuracy_reward",
                "rafs_step_validity": "rafs_step_validity_reward", "rafs_support": "rafs_support_reward",
                "rafs_consensus": "rafs_consensus_reward", "rafs_stability": "rafs_stability_reward"}
    assert {k: f.__name__ for k, f in REWARD_FUNCS.items()} == expected
    configured = get_reward_funcs(list(expected), config={"tau_accept": 70.0})
    assert [f.__name__ for f in configured] == list(expected.values())
    assert [f.__name__ for f in get_reward_funcs(list(expected.values()))] == list(expected.values())
    assert [f.__name__ for f in get_reward_funcs("rafs, faithful_accuracy")] == ["rafs_reward",
                                                                                 "faithful_accuracy_reward"]
    assert get_rafs_reward(name="rafs_strict").__name__ == "rafs_strict"


def test_unknown_name_lists_the_known_names():
    with pytest.raises(ValueError) as err:
        get_reward_funcs(["rafs", "accuracy_v2"])
    message = str(err.value)
    assert "'accuracy_v2'" in message and all(name in message for name in ALL_NAMES)


def test_bad_config_key_is_named():
    with pytest.raises(ValueError, match="tau_acept"):
        get_reward_funcs(["rafs"], config={"tau_acept": 60})


def test_config_changes_the_reward():
    prompts = [PROBLEM] * 2
    default = get_rafs_reward()(prompts, [GOOD, SILENT])
    only_pr = get_rafs_reward({"weights": {"P_R": 1.0}})(prompts, [GOOD, SILENT])
    assert only_pr[1] == pytest.approx(rafs_step_validity_reward(prompts, [GOOD, SILENT])[1], rel=0.05)
    assert only_pr != default


def test_not_an_nn_module():
    import torch

    for func in [*REWARD_FUNCS.values(), *get_reward_funcs(ALL_NAMES, config=RAFSConfig())]:
        assert not isinstance(func, torch.nn.Module)


def test_pickle_round_trip_of_every_registered_reward():
    prompts, completions, answers = _batch()
    funcs = [*get_reward_funcs(ALL_NAMES), *get_reward_funcs(ALL_NAMES, config={"theta_step": 0.4}),
             get_faithful_accuracy_reward(unfaithful_credit=0.3, gold_column="answer")]
    for func in funcs:
        clone = pickle.loads(pickle.dumps(func))
        assert clone.__name__ == func.__name__
        before = func(prompts, completions, answer=answers)
        T.clear_cache()
        after = clone(prompts, completions, answer=answers)
        assert _same(before, after), func.__name__
    clone = pickle.loads(pickle.dumps(funcs[-1]))
    assert clone.unfaithful_credit == 0.3 and clone.config == funcs[-1].config


# -- threads ----------------------------------------------------------------------------------------------------------

def test_thread_pool_equals_sequential():
    prompts, completions, answers = _batch()
    funcs = get_reward_funcs(ALL_NAMES) + get_reward_funcs(ALL_NAMES, config={"lam": 0.3}, cache=False)
    batches = []
    for shift in range(4):  # different batches so threads do not just share one cache entry
        rot = completions[shift:4] + completions[:shift] + completions[4 + shift:] + completions[4:4 + shift]
        batches.append((prompts, rot, answers))
    T.clear_cache()
    sequential = [f(p, c, answer=a) for f in funcs for p, c, a in batches]
    T.clear_cache()
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(f, p, c, answer=a) for f in funcs for p, c, a in batches]
        threaded = [fut.result() for fut in futures]
    assert len(threaded) == len(sequential)
    for s, t in zip(sequential, threaded):
        assert _same(s, t)


# -- logging ----------------------------------------------------------------------------------------------------------

class _Recorder:
    """Mirrors GRPOTrainer._log_metric(name, value) / _log_completion_extra(column, values)."""

    def __init__(self):
        self.metrics: dict[str, list[float]] = {}
        self.extra: dict[str, list] = {}

    def log_metric(self, name: str, value: float) -> None:
        assert isinstance(name, str) and isinstance(value, float)
        self.metrics.setdefault(name, []).append(value)

    def log_extra(self, column: str, values: list) -> None:
        assert isinstance(column, str) and isinstance(values, list)
        self.extra.setdefault(column, []).extend(values)


def test_log_metric_and_log_extra_shapes():
    prompts, completions, answers = _batch()
    completions = completions[:-1] + [""]  # one abstention
    rec = _Recorder()
    out = rafs_reward(prompts, completions, answer=answers, log_metric=rec.log_metric, log_extra=rec.log_extra,
                      trainer_state=None)
    for key in ("rafs_mean", "abstain_rate", "silent_failure_rate", "P_R_mean", "S_RA_mean", "C_A_mean"):
        assert f"rafs_reward/{key}" in rec.metrics, sorted(rec.metrics)
        assert len(rec.metrics[f"rafs_reward/{key}"]) == 1
    assert rec.metrics["rafs_reward/abstain_rate"][0] == pytest.approx(1 / 8)
    assert 0.0 < rec.metrics["rafs_reward/silent_failure_rate"][0] <= 0.5  # SILENT is one of 8
    scored = [v for v in out if v is not None]
    assert rec.metrics["rafs_reward/rafs_mean"][0] == pytest.approx(100 * sum(scored) / len(scored))
    assert set(rec.extra) == {"rafs_reward/rafs", "rafs_reward/status", "rafs_reward/suspect_step",
                              "rafs_reward/reward_version"}
    assert all(len(v) == len(completions) for v in rec.extra.values())
    assert rec.extra["rafs_reward/status"][-1] == "abstain" and rec.extra["rafs_reward/rafs"][-1] == 0.0  # no support
    assert rec.extra["rafs_reward/suspect_step"][1] == 0  # SILENT's first step is false


def test_logging_without_gold_has_no_silent_failure_rate_and_accuracy_logs_its_own():
    prompts, completions, answers = _batch()
    rec = _Recorder()
    rafs_reward(prompts, completions, log_metric=rec.log_metric, log_extra=rec.log_extra)
    assert "rafs_reward/silent_failure_rate" not in rec.metrics
    rec = _Recorder()
    faithful_accuracy_reward(prompts, completions, answer=answers, log_metric=rec.log_metric,
                             log_extra=rec.log_extra)
    assert {"faithful_accuracy_reward/accuracy", "faithful_accuracy_reward/silent_failure_rate"} <= set(rec.metrics)
    assert rec.metrics["faithful_accuracy_reward/accuracy"][0] == pytest.approx(6 / 8)
    assert set(rec.extra) == {"faithful_accuracy_reward/correct", "faithful_accuracy_reward/failure_type",
                              "faithful_accuracy_reward/reward_version"}
    assert all(len(v) == 8 for v in rec.extra.values())


def test_component_rewards_do_not_log_by_default_and_a_failing_hook_is_contained():
    rec = _Recorder()
    rafs_support_reward([PROBLEM], [GOOD], log_metric=rec.log_metric, log_extra=rec.log_extra)
    assert rec.metrics == {} and rec.extra == {}

    def broken(*args, **kwargs):
        raise RuntimeError("wandb is down")

    assert rafs_reward([PROBLEM], [GOOD], log_metric=broken, log_extra=broken)[0] is not None


@pytest.fixture
def forced_arithmetic_error(monkeypatch):
    """The exact checks fail on every false equation (their message formatter raises), with RAFS_STRICT off so
    the error is swallowed and counted as in production; the counts are reset afterwards (conftest fails the
    session on any count left over)."""
    from rewards.checks import arithmetic

    def broken(value):
        raise RuntimeError("forced formatter failure")

    monkeypatch.setenv(arithmetic.STRICT_ENV, "0")
    monkeypatch.setattr(arithmetic, "display_value", broken)
    arithmetic.reset_error_counts()
    yield arithmetic
    arithmetic.reset_error_counts()


def test_internal_errors_are_logged_as_a_metric_kept_in_stats_and_warned_once(forced_arithmetic_error, caplog):
    arithmetic = forced_arithmetic_error
    prompt = "Ivo packs 17 crates of 23 jars. How many jars?"  # not seen elsewhere: no check is cached
    bad = ["17 * 23 = 392 jars.\n#### 392", "17 * 23 = 390 jars.\n#### 390"]  # two false equations
    reward = get_rafs_reward(cache=False)
    rec = _Recorder()
    with caplog.at_level("WARNING", logger="rewards.adapters.trl_rewards"):
        out = reward([prompt] * 2, bad, log_metric=rec.log_metric, log_extra=rec.log_extra)
    assert len(out) == 2  # the reward still answers
    counted = sum(arithmetic.error_counts().values())
    assert counted >= 2 and set(arithmetic.error_counts()) == {"check_equation:RuntimeError"}
    assert rec.metrics["rafs_reward/internal_errors"] == [float(counted)]
    assert reward.stats["internal_errors"] == counted and reward.stats["failed_groups"] == 0
    assert reward.stats["errors_by_kind"] == {"check_equation:RuntimeError": counted}
    warnings = [r.getMessage() for r in caplog.records if "internal error" in r.getMessage()]
    assert len(warnings) == 1 and "check_equation:RuntimeError" in warnings[0]
    assert "Ivo packs 17 crates" in warnings[0]
    assert "17 * 23 = 392" in warnings[0]  # the input that caused it

    caplog.clear()
    rec = _Recorder()
    with caplog.at_level("WARNING", logger="rewards.adapters.trl_rewards"):
        reward([prompt] * 2, ["17 * 23 = 393 jars.\n#### 393", "17 * 23 = 394 jars.\n#### 394"],
               log_metric=rec.log_metric)
    again = sum(arithmetic.error_counts().values()) - counted
    assert again >= 2 and rec.metrics["rafs_reward/internal_errors"] == [float(again)]
    assert reward.stats["internal_errors"] == counted + again
    assert not [r for r in caplog.records if "internal error" in r.getMessage()]  # once per new kind

    rec = _Recorder()
    reward([prompt], ["17 * 23 = 391 jars.\n#### 391"], log_metric=rec.log_metric)  # a true equation
    assert rec.metrics["rafs_reward/internal_errors"] == [0.0]  # a batch without a failure logs zero


def test_a_group_that_fails_to_score_is_counted_as_an_internal_error(monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise KeyError("forced scorer failure")

    from rewards.adapters import reward_base

    monkeypatch.setattr(reward_base, "score_group", broken)  # the in-process scoring of the reward base class
    reward = get_rafs_reward(cache=False)
    rec = _Recorder()
    prompts, completions, answers = _batch()
    with caplog.at_level("WARNING", logger="rewards.adapters.trl_rewards"):
        out = reward(prompts, completions, answer=answers, log_metric=rec.log_metric)
    assert out == [None] * 8  # both groups abstain; training goes on
    assert rec.metrics["rafs_reward/internal_errors"] == [2.0]  # one per group
    assert reward.stats["failed_groups"] == 2 and reward.stats["errors_by_kind"] == {"score_group:KeyError": 2}
    assert any("score_group:KeyError" in r.getMessage() and "forced scorer failure" in r.getMessage()
               for r in caplog.records)
    with pytest.raises(KeyError):
        get_rafs_reward(cache=False, strict=True)(prompts, completions, answer=answers)


def test_strict_component_error_says_why():
    strict = T.get_rafs_consensus_reward(strict=True)
    with pytest.raises(ValueError, match="at least 2 completions"):
        strict([PROBLEM], [GOOD])
    strict_acc = get_faithful_accuracy_reward(strict=True)
    with pytest.raises(ValueError, match="no usable gold"):
        strict_acc([PROBLEM], [GOOD], answer=[""])


# -- untrusted output, fuzzed -----------------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_pieces = st.sampled_from(["48/2 = 24", "48+24=72", " = ", "<<", ">>", "####", "\\boxed{", "}", "<think>",
                           "</think>", "\n", "The answer is", "72", "-", "1e400", "0/0", "10**10**10", "%", "$"])
_text = st.one_of(st.text(max_size=200), st.lists(_pieces, max_size=30).map("".join))
_completion = st.one_of(_text, _text.map(lambda t: [{"role": "assistant", "content": t}]),
                        _text.map(lambda t: [{"role": "assistant", "content": "", "reasoning_content": t}]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_completion, min_size=1, max_size=4), st.one_of(st.none(), _text))
def test_fuzzed_completions_never_raise(completions, gold):
    prompts = [PROBLEM] * len(completions)
    kwargs = {} if gold is None else {"answer": [gold] * len(completions)}
    for func in (rafs_reward, faithful_accuracy_reward, rafs_consensus_reward):
        out = func(prompts, completions, **kwargs)
        assert len(out) == len(completions)
        assert all(v is None or 0.0 <= v <= 1.0 for v in out)


# -- correct_only: RAFS added to accuracy must not pay a wrong answer for well-formed steps ---------------------------

_APPLES = "Ann has 2 bags of 5 apples. How many apples does she have?"
_RIGHT = "2 * 5 = 10 apples.\n#### 10"
_MISREAD = "2 + 5 = 7 apples.\n#### 7"   # every step true, the wrong operation


def test_correct_only_pays_a_wrong_answer_nothing_and_leaves_the_rest_as_rafs():
    from rewards.adapters.trl_rewards import get_rafs_reward, rafs_reward

    gated = get_rafs_reward(correct_only=True)
    assert rafs_reward([_APPLES], [_MISREAD], answer=["10"])[0] > 0.5     # the hazard: RAFS reads no gold
    assert gated([_APPLES], [_MISREAD], answer=["10"]) == [0.0]
    assert gated([_APPLES], [_RIGHT], answer=["10"]) == rafs_reward([_APPLES], [_RIGHT], answer=["10"])
    group = rafs_reward([_APPLES] * 2, [_RIGHT, _MISREAD], answer=["10", "10"])
    assert gated([_APPLES] * 2, [_RIGHT, _MISREAD], answer=["10", "10"]) == [group[0], 0.0]
    assert gated([_APPLES], [_MISREAD]) == rafs_reward([_APPLES], [_MISREAD])   # no gold column: RAFS as it is
    assert gated([_APPLES], ["So it is 10 apples."], answer=["10"]) == \
        rafs_reward([_APPLES], ["So it is 10 apples."], answer=["10"])


def test_correct_only_with_accuracy_orders_a_correct_bare_answer_above_a_wrong_chain():
    from rewards.adapters.trl_rewards import faithful_accuracy_reward, get_rafs_reward

    gated = get_rafs_reward(correct_only=True)
    kinds = {"faithful": _RIGHT, "bare": "#### 10", "wrong chain": _MISREAD}
    total = {k: faithful_accuracy_reward([_APPLES], [c], answer=["10"])[0]
             + (gated([_APPLES], [c], answer=["10"])[0] or 0.0) for k, c in kinds.items()}
    assert total["faithful"] > total["bare"] > total["wrong chain"] == 0.0


def test_correct_only_is_a_checked_picklable_setting_of_its_own_version():
    import pickle

    from rewards.adapters.trl_rewards import get_rafs_reward

    gated = get_rafs_reward(correct_only=True)
    assert pickle.loads(pickle.dumps(gated)).correct_only is True
    assert gated.__name__ == "rafs_reward"
    assert gated.reward_version != get_rafs_reward().reward_version
    with pytest.raises(TypeError, match="correct_only"):
        get_rafs_reward(correct_only="yes")
