"""trainers.common.config: one loader for RAFSConfig from a YAML/JSON file or a mapping plus flags, with one-line errors."""

from __future__ import annotations

import argparse
import dataclasses
import json

import pytest

from rewards import RAFSConfig
from trainers.cli import CommandError, main
from trainers.common.config import (add_config_arguments, config_from_args, config_to_dict, load_command_config,
                             load_rafs_config, rafs_fields)


def test_valid_keys_come_from_the_dataclass():
    assert list(rafs_fields()) == [f.name for f in dataclasses.fields(RAFSConfig)]


@pytest.mark.parametrize("suffix, text", [
    (".yaml", "tau_accept: 70\ntheta-step: 0.4\nweights: {P_R: 0.5, S_RA: 0.5}\nsmooth: true\n"),
    (".json", json.dumps({"tau_accept": 70, "theta-step": 0.4, "weights": {"P_R": 0.5, "S_RA": 0.5},
                          "smooth": True})),
    (".yml", "rafs:\n  tau_accept: 70\n  theta_step: 0.4\n  weights: {P_R: 0.5, S_RA: 0.5}\n  smooth: true\n"),
])
def test_file_yaml_json_and_nested_block(tmp_path, suffix, text):
    path = tmp_path / f"c{suffix}"
    path.write_text(text)
    config = load_rafs_config(path)
    assert isinstance(config, RAFSConfig)
    assert (config.tau_accept, config.theta_step, dict(config.weights), config.smooth) == \
        (70.0, 0.4, {"P_R": 0.5, "S_RA": 0.5}, True)
    assert isinstance(config.tau_accept, float)


def test_overrides_beat_the_file_and_text_is_typed(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("tau_accept: 70\nm_min: 2\n")
    config = load_rafs_config(path, {"tau_accept": "80", "m_min": None, "weights": "P_R=1,S_RA=0",
                                     "embedding_model": "none", "missing_evidence": "absent"})
    assert (config.tau_accept, config.m_min, dict(config.weights), config.embedding_model,
            config.missing_evidence) == (80.0, 2, {"P_R": 1.0, "S_RA": 0.0}, None, "absent")
    assert load_rafs_config() == RAFSConfig()


def test_unknown_key_names_key_file_and_valid_keys(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("tau_accept: 70\ntau_acept: 1\n")
    with pytest.raises(CommandError) as err:
        load_rafs_config(path)
    msg = str(err.value)
    assert "\n" not in msg and "'tau_acept'" in msg and str(path) in msg and "did you mean 'tau_accept'" in msg
    for name in rafs_fields():
        assert name in msg
    with pytest.raises(CommandError, match="'bogus' in the command line"):
        load_rafs_config(None, {"bogus": "1"})
    with pytest.raises(CommandError, match="'bogus' in the 'rafs' block"):
        load_rafs_config({"rafs": {"bogus": 1}})


@pytest.mark.parametrize("source, overrides, fragment", [
    ({"tau_accept": "high"}, None, "'tau_accept' in the mapping given: 'high' is not a number"),
    ({"m_min": 1.5}, None, "'m_min' in the mapping given: 1.5 is not an integer"),
    ({"smooth": 1}, None, "'smooth' in the mapping given: 1 is not true or false"),
    ({"weights": [0.5]}, None, "'weights'"),
    ({"weights": {"P_R": "x"}}, None, "'weights'"),
    (None, {"smooth": "maybe"}, "'smooth' in the command line: 'maybe' is not true or false"),
    (None, {"m_min": "two"}, "'two' is not an integer"),
    (None, {"weights": "P_R"}, "is not a mapping"),
    ({"tau_accept": 500}, None, "tau_accept=500.0 is outside [0, 100]"),
    (None, {"group_mode": "team"}, "group_mode='team'"),
])
def test_bad_values_are_one_line_errors(source, overrides, fragment):
    with pytest.raises(CommandError) as err:
        load_rafs_config(source, overrides)
    assert fragment in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("content, fragment", [
    (None, "does not exist"), ("dir", "is a folder"), ("tau_accept: [1\n", "not valid YAML"),
    ("- 1\n- 2\n", "must hold a mapping"),
])
def test_bad_files(tmp_path, content, fragment):
    path = tmp_path / "c.yaml"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_text(content)
    with pytest.raises(CommandError, match=fragment):
        load_rafs_config(path)
    bad_json = tmp_path / "c.json"
    bad_json.write_text("{tau_accept: 1}")
    with pytest.raises(CommandError, match="not valid JSON"):
        load_rafs_config(bad_json)


def test_command_keys_and_aliases():
    config, options = load_command_config({"min_rafs": 80, "statuses": "accept", "tau-accept": 65},
                                          extra_keys=["min_rafs", "status"], aliases={"statuses": "status"})
    assert config.tau_accept == 65.0 and options == {"min_rafs": 80, "status": "accept"}
    with pytest.raises(CommandError, match="unknown config key 'min_rafs'"):
        load_rafs_config({"min_rafs": 80})  # a command key is not a RAFS field elsewhere


def test_argparse_helper_flags_and_aliases(tmp_path):
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, aliases={"tau_accept": ["--tau-accept"]})
    cfg = tmp_path / "c.yaml"
    cfg.write_text("tau_accept: 70\nlam: 0.2\n")
    args = parser.parse_args(["--config", str(cfg), "--tau-accept", "90", "--rafs.smooth", "yes"])
    config = config_from_args(args)
    assert (config.tau_accept, config.lam, config.smooth) == (90.0, 0.2, True)
    assert config_to_dict(config) == {"lam": 0.2, "smooth": True, "tau_accept": 90.0}
    help_text = parser.format_help()
    for name in rafs_fields():
        assert f"--rafs.{name}" in help_text


@pytest.mark.parametrize("command", ["score", "filter", "eval", "audit", "serve"])
def test_every_command_rejects_an_unknown_config_key(tmp_path, capsys, command):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("tau_acept: 70\n")
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"problem": "1+1?", "completion": "1 + 1 = 2\n#### 2"}) + "\n")
    argv = {"score": ["score", str(data)], "filter": ["filter", str(data), "--out", str(tmp_path / "o")],
            "eval": ["eval", str(data)], "audit": ["audit", "rafs", "--n", "3"], "serve": ["serve"]}[command]
    assert main(argv + ["--config", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"rafs {command}: error: unknown config key 'tau_acept'") and "\n" not in err
    assert str(cfg) in err and "theta_step" in err


@pytest.mark.parametrize("command", ["score", "filter", "eval", "audit", "serve"])
def test_every_command_type_checks_a_flag(tmp_path, capsys, command):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"problem": "1+1?", "completion": "1 + 1 = 2\n#### 2"}) + "\n")
    argv = {"score": ["score", str(data)], "filter": ["filter", str(data), "--out", str(tmp_path / "o")],
            "eval": ["eval", str(data)], "audit": ["audit", "rafs", "--n", "3"], "serve": ["serve"]}[command]
    assert main(argv + ["--rafs.m_min", "lots"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'m_min'" in err and "'lots' is not an integer" in err and "\n" not in err


def test_serve_reads_config_file_flags_and_legacy_json(tmp_path, monkeypatch):
    import trainers.serve

    seen = []

    def fake_create_app(**kwargs):
        seen.append(kwargs["rafs_config"])
        raise CommandError("stop before binding")

    monkeypatch.setattr(trainers.serve, "create_app", fake_create_app)
    cfg = tmp_path / "serve.json"
    cfg.write_text(json.dumps({"tau_accept": 70, "group_mode": "member"}))
    assert main(["serve", "--config", str(cfg), "--rafs.theta_step", "0.4"]) == 2
    assert main(["serve", "--rafs-config", '{"tau_accept": 65}']) == 2
    assert main(["serve"]) == 2
    assert seen == [{"theta_step": 0.4, "tau_accept": 70.0, "group_mode": "member"}, {"tau_accept": 65.0}, None]
