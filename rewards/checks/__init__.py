"""Checks: what a step or a trace states, checked exactly and without a model.

- :mod:`~rewards.checks.arithmetic` — the exact evaluator and equation extractor (no eval, no sympify, bounded);
- :mod:`~rewards.checks.identities` — chained one-variable identities refuted at rational points;
- :mod:`~rewards.checks.equations` — a step's equations with their checks (the scorer's per-step evidence);
- :mod:`~rewards.checks.answers` — answer equivalence (exact numbers first, math-verify otherwise);
- :mod:`~rewards.checks.claims` — trace-level claim checkers, one module each, and their registry.

Checks import only each other and :mod:`rewards.parsing`; the scoring layer (:mod:`rewards.scoring`) reads them.
Adding a claim checker is adding one file to ``rewards/checks/claims/`` (and its test), then one line in
:func:`rewards.checks.claims._shipped`.
"""
