"""Step verifiers ``g(x, r_<t, r_t) -> q_t``: the symbolic checker (default, no model) and model-backed ones.

Importing this package loads no torch, transformers or httpx: the model-backed verifiers import them when built.
"""

from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.fallback import FallbackVerifier
from rewards.verifiers.families import IndependenceError, IndependenceWarning, check_independence, family
from rewards.verifiers.judge import JudgeConfig, JudgeError, JudgeVerifier
from rewards.verifiers.nli import NLIConfig, NLIVerifier
from rewards.verifiers.prm import PRMConfig, PRMVerifier, VerifierLoadError
from rewards.verifiers.registry import (
    VERIFIER_KEYS,
    VERIFIERS,
    add_verifier_arguments,
    build_verifier,
    verifier_from_args,
    verifier_from_config,
)
from rewards.verifiers.symbolic import SymbolicConfig, SymbolicVerifier

__all__ = [
    "FallbackVerifier", "IndependenceError", "IndependenceWarning", "JudgeConfig", "JudgeError", "JudgeVerifier",
    "NLIConfig", "NLIVerifier", "PRMConfig", "PRMVerifier", "StepCheck", "StepVerifier", "SymbolicConfig",
    "SymbolicVerifier", "VERIFIERS", "VERIFIER_KEYS", "VerifierLoadError", "add_verifier_arguments",
    "build_verifier", "check_independence", "family", "verifier_from_args", "verifier_from_config",
]
