"""rafs.rewards: what one completion (or one group of completions) is worth.

The core (trace parsing, exact arithmetic, dataflow, the symbolic verifier, the four components and the
aggregation) imports no torch, TRL or transformers, so scoring is fast to import and runs in worker processes.

>>> from rewards import score_trace
>>> score_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens.\\n#### 12").status
'accept'
"""

from rewards.adapters.filtering import FilterResult, filter_dataset
from rewards.scoring.score import COMPONENTS, FAILURE_TYPES, RAFSConfig, RAFSResult, score_group, score_trace, score_traces
from rewards.parsing.trace import Trace, parse_trace
from rewards.adapters.trl_rewards import (
    REWARD_FUNCS,
    faithful_accuracy_reward,
    get_faithful_accuracy_reward,
    get_rafs_consensus_reward,
    get_rafs_reward,
    get_rafs_stability_reward,
    get_rafs_step_validity_reward,
    get_rafs_support_reward,
    get_reward_funcs,
    rafs_consensus_reward,
    rafs_reward,
    rafs_stability_reward,
    rafs_step_validity_reward,
    rafs_support_reward,
)

__all__ = [
    "COMPONENTS", "FAILURE_TYPES", "FilterResult", "RAFSConfig", "RAFSResult", "REWARD_FUNCS", "Trace",
    "faithful_accuracy_reward", "filter_dataset", "get_faithful_accuracy_reward", "get_rafs_consensus_reward",
    "get_rafs_reward", "get_rafs_stability_reward", "get_rafs_step_validity_reward", "get_rafs_support_reward",
    "get_reward_funcs", "parse_trace", "rafs_consensus_reward", "rafs_reward", "rafs_stability_reward",
    "rafs_step_validity_reward", "rafs_support_reward", "score_group", "score_trace", "score_traces",
]
