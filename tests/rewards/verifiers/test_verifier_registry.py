"""build_verifier and the CLI helpers add_verifier_arguments / verifier_from_args."""

from __future__ import annotations

import argparse

import pytest

from rewards.verifiers.fallback import FallbackVerifier
from rewards.verifiers.registry import VERIFIERS, add_verifier_arguments, build_verifier, verifier_from_args
from rewards.verifiers.symbolic import SymbolicVerifier


def test_symbolic_and_unknown_names():
    assert isinstance(build_verifier("symbolic"), SymbolicVerifier)
    assert build_verifier("symbolic", q_prior=0.6).config.q_prior == 0.6
    with pytest.raises(ValueError, match="verifier='oracle' is not known"):
        build_verifier("oracle")
    with pytest.raises(ValueError, match="takes no model"):
        build_verifier("symbolic", "some/model")
    assert VERIFIERS == ("symbolic", "prm", "judge", "nli")


def test_model_verifiers_are_wrapped_in_a_fallback(qwen_prm_dir, bert_nli_dir, llama_dir):
    pytest.importorskip("torch")
    from rewards.verifiers.judge import JudgeVerifier
    from rewards.verifiers.nli import NLIVerifier
    from rewards.verifiers.prm import PRMVerifier

    prm = build_verifier("prm", qwen_prm_dir, device="cpu", fallback_timeout_s=7)
    assert isinstance(prm, FallbackVerifier) and isinstance(prm.primary, PRMVerifier) and prm.timeout_s == 7
    assert isinstance(build_verifier("prm", qwen_prm_dir, device="cpu", fallback=False), PRMVerifier)
    assert isinstance(build_verifier("nli", bert_nli_dir, device="cpu").primary, NLIVerifier)
    assert isinstance(build_verifier("judge", llama_dir, device="cpu").primary, JudgeVerifier)
    with pytest.raises(TypeError, match="unknown option.*valid options"):
        build_verifier("prm", qwen_prm_dir, temperature=0.3)


def test_cli_helpers(qwen_prm_dir):
    pytest.importorskip("torch")
    parser = add_verifier_arguments(argparse.ArgumentParser())
    args = parser.parse_args([])
    assert isinstance(verifier_from_args(args), SymbolicVerifier)
    args = parser.parse_args(["--verifier", "prm", "--verifier-model", qwen_prm_dir, "--verifier-device", "cpu",
                              "--verifier-batch-size", "4", "--verifier-timeout", "9"])
    v = verifier_from_args(args)
    assert isinstance(v, FallbackVerifier) and v.timeout_s == 9 and v.primary.config.batch_size == 4
    args = parser.parse_args(["--verifier", "prm", "--verifier-model", qwen_prm_dir, "--verifier-device", "cpu",
                              "--verifier-timeout", "0"])
    assert not isinstance(verifier_from_args(args), FallbackVerifier)
    with pytest.raises(ValueError, match="--verifier nli needs --verifier-model"):
        verifier_from_args(parser.parse_args(["--verifier", "nli"]))
    with pytest.raises(ValueError, match="apply to --verifier judge"):
        verifier_from_args(parser.parse_args(["--verifier", "prm", "--verifier-model", qwen_prm_dir,
                                              "--judge-base-url", "http://127.0.0.1:1/v1"]))


def test_recipe_keys(qwen_prm_dir):
    pytest.importorskip("torch")
    from rewards.verifiers.registry import VERIFIER_KEYS, verifier_from_config

    assert isinstance(verifier_from_config({"learning_rate": 1e-5, "num_generations": 4}), SymbolicVerifier)
    v = verifier_from_config({"verifier": "prm", "verifier_model": qwen_prm_dir, "verifier_device": "cpu",
                              "verifier_timeout": 30, "verifier_generator": "HuggingFaceTB/SmolLM2-135M-Instruct",
                              "verifier_strict_independence": True})
    assert isinstance(v, FallbackVerifier) and v.timeout_s == 30 and v.primary.independent is True
    with pytest.raises(ValueError, match=r"unknown verifier key\(s\) \['verifier_modle'\]"):
        verifier_from_config({"verifier": "prm", "verifier_modle": qwen_prm_dir})
    parser = add_verifier_arguments(argparse.ArgumentParser())
    assert set(vars(parser.parse_args([]))) == set(VERIFIER_KEYS)  # recipe keys = CLI destinations
