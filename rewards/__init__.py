"""rafs.rewards: what one completion (or one group of completions) is worth.

The core (trace parsing, exact arithmetic, dataflow, the symbolic verifier, the four components and the
aggregation) imports no torch, TRL or transformers, so scoring is fast to import and runs in worker processes.

>>> from rewards import score_trace
>>> score_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens.\\n#### 12").status
'accept'
"""

from rewards.score import COMPONENTS, FAILURE_TYPES, RAFSConfig, RAFSResult, score_group, score_trace, score_traces
from rewards.trace import Trace, parse_trace

__all__ = ["COMPONENTS", "FAILURE_TYPES", "RAFSConfig", "RAFSResult", "Trace", "parse_trace", "score_group",
           "score_trace", "score_traces"]
