"""Scoring: the dataflow graph of a trace, the four RAFS components and their aggregation.

- :mod:`~rewards.evidence` — quantities each step uses and produces, grounding, counterfactual propagation;
- :mod:`~rewards.scoring.components` — P_R, S_RA, C_A, D_R as pure functions;
- :mod:`~rewards.scoring.similarity` — the optional embedding blend for D_R;
- :mod:`~rewards.scoring.score` — :class:`~rewards.scoring.score.RAFSConfig`, :func:`~rewards.scoring.score.score_trace`,
  :func:`~rewards.scoring.score.score_group`.

Scoring reads :mod:`rewards.checks`, :mod:`rewards.parsing` and :mod:`rewards.verifiers`; nothing below imports it.
"""
