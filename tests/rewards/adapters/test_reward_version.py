"""The reward version: logged beside every value, different for a different config, carried by the reports."""

from __future__ import annotations

import json
import pickle

from rewards import get_faithful_accuracy_reward, get_rafs_reward, rafs_reward
from rewards.adapters.reward_version import reward_version

PROMPT, COMPLETION = "Tom has 3 boxes of 4 pens. How many pens?", "3 * 4 = 12 pens.\n#### 12"


def test_every_call_logs_the_version_beside_its_values():
    extras: dict = {}
    rafs_reward([PROMPT] * 2, [COMPLETION] * 2, log_extra=lambda column, values: extras.update({column: values}),
                log_metric=lambda name, value: None)
    versions = extras["rafs_reward/reward_version"]
    assert len(versions) == 2 and versions[0] == versions[1] == get_rafs_reward().reward_version


def test_the_version_names_the_reward_its_config_and_its_credits():
    base = get_rafs_reward().reward_version
    assert base.startswith("rafs_reward@")
    assert get_rafs_reward({"tau_accept": 70}).reward_version != base
    assert get_faithful_accuracy_reward().reward_version != get_faithful_accuracy_reward(0.25).reward_version
    fn = pickle.loads(pickle.dumps(get_rafs_reward()))
    assert fn.reward_version == base


def test_the_audit_report_carries_the_versions(tmp_path):
    from trainers.cli import main

    out = tmp_path / "audit.json"
    assert main(["audit", "rafs", "--n", "3", "--families", "bare_answer", "--no-progress", "--json", str(out)]) == 0
    meta = json.loads(out.read_text())["meta"]
    assert meta["reward_versions"]["rafs"] == get_rafs_reward().reward_version


def test_reward_version_is_deterministic_and_settings_sensitive():
    assert reward_version("r", {"a": 1, "b": 2}) == reward_version("r", {"b": 2, "a": 1})
    assert reward_version("r", {"a": 1}) != reward_version("r", {"a": 2}) != reward_version("s", {"a": 2})
