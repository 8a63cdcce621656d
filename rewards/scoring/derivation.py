"""The answer's derivation as a function of the problem's quantities, for the scoring layer.

The reading itself lives in the evidence layer (:mod:`rewards.evidence.derivation_function`); this module names
its public part where scoring code reads it (group scoring compares the members' functions).

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence import build_dataflow
>>> t = parse_trace("Ann has 3 apples and buys 4 bags of 2.", "4 * 2 = 8 new apples.\\n3 + 8 = 11 apples.\\n#### 11")
>>> derivation_function(t, build_dataflow(t)).degenerate is None
True
"""

from rewards.evidence.derivation_function import DerivationFunction, derivation_function
from rewards.evidence.readings import MAX_NODES, MAX_QUANTITIES, MAX_READINGS

__all__ = ["DerivationFunction", "derivation_function", "MAX_NODES", "MAX_READINGS", "MAX_QUANTITIES"]
