"""Adapters: the score handed to the tools that use it.

- :mod:`~rewards.adapters.trl_rewards` — TRL reward functions (GRPO, RLOO) and their registry;
- :mod:`~rewards.adapters.filtering` — the SFT dataset filter;
- :mod:`~rewards.adapters.engines` — verl and OpenRLHF reward entry points;
- :mod:`~rewards.adapters.evaluation` — ProcessBench evaluation (``rafs eval``);
- :mod:`~rewards.adapters.counterfactual` — policy counterfactuals with a model (generation, teacher forcing);
- :mod:`~rewards.adapters.differentiable` — a torch surrogate of RAFS (imports torch).

The top layer of :mod:`rewards`: adapters import scoring, checks and parsing; nothing in :mod:`rewards` below them
imports an adapter.
"""
