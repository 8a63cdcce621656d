"""RAFS inside PPO engines: verl (:mod:`rewards.adapters.engines.verl`), OpenRLHF (:mod:`rewards.adapters.engines.openrlhf`) and the
engine-neutral batch scorer they share (:mod:`rewards.adapters.engines.core`). ``rafs serve`` (:mod:`trainers.serve`) puts the
same scorer behind HTTP. Nothing here imports verl, OpenRLHF, Ray or torch at module load. See ``docs/engines.md``.
"""

from rewards.adapters.engines.core import Item, score_items

__all__ = ["Item", "score_items"]
