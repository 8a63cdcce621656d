"""``rafs audit`` and ``rafs train`` read reward names through one resolver (:mod:`trainers.training.reward_names`): the same
names mean the same functions, a module in the working directory is found by both, and a bad name is the same
one-line error."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("trl")

from trainers.cli import CommandError  # noqa: E402
from trainers.cli.commands.audit import resolve_reward  # noqa: E402
from trainers.training.recipes import RAFSScriptArguments  # noqa: E402
from trainers.training.reward_choice import GoldColumnReward, resolve_reward_func  # noqa: E402

NAMES = ["trl.rewards.accuracy_reward", "trl.rewards:accuracy_reward", "accuracy_reward",
         "rafs", "rafs_reward", "rewards.adapters.trl_rewards.faithful_accuracy_reward",
         "cwd_reward_module.half_reward", "cwd_reward_module:half_reward"]


@pytest.fixture
def in_cwd(tmp_path, monkeypatch):
    (tmp_path / "cwd_reward_module.py").write_text(
        "def half_reward(completions, **kwargs):\n    return [0.5 for _ in completions]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    sys.modules.pop("cwd_reward_module", None)


@pytest.mark.parametrize("name", NAMES)
def test_audit_and_train_resolve_a_name_to_the_same_function(in_cwd, name):
    _, audited = resolve_reward(name)
    trained = resolve_reward_func(name, RAFSScriptArguments())
    trained = trained.func if isinstance(trained, GoldColumnReward) else trained
    assert audited is trained or (audited.__module__, audited.__name__) == (trained.__module__, trained.__name__)


@pytest.mark.parametrize("name,message", [
    ("accuracy", "unknown reward 'accuracy'"),
    ("trl.rewards.acuracy_reward", "has no reward function 'acuracy_reward'; did you mean trl.rewards.accuracy_reward"),
    ("no_such_pkg_xyz.reward", "cannot import 'no_such_pkg_xyz'"),
])
def test_a_bad_name_is_the_same_error_in_both(name, message):
    with pytest.raises(CommandError) as audited:
        resolve_reward(name)
    with pytest.raises(ValueError) as trained:
        resolve_reward_func(name, RAFSScriptArguments())
    assert message in str(audited.value) and message in str(trained.value)
    assert str(trained.value) == f"reward_funcs: {audited.value}"
