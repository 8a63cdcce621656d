"""Step verifiers ``g(x, r_<t, r_t) -> q_t``: the symbolic checker (default, no model) and model-backed ones."""

from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.symbolic import SymbolicConfig, SymbolicVerifier

__all__ = ["StepCheck", "StepVerifier", "SymbolicConfig", "SymbolicVerifier"]
