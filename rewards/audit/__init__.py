"""Reward integrity audit: gamed completions built from real gold solutions, run against any reward function.

:mod:`rewards.audit.families` builds the gamed completions (one :class:`~rewards.audit.families.Family` per way to
collect a reward without reasoning, each with the property a reward must keep); :mod:`rewards.audit.battery` calls a
reward function the way TRL does and reports, per family, the *violation share*: the share of problems where
``r(gamed) >= r(faithful)`` (``below_faithful``), ``r(gamed) > r(faithful) + tol`` (``no_gain``) or
``r(gamed) > r(visible slip) + tol`` (``not_above_slip``). A family passes at a share of at most 2%.
The command line is ``rafs audit module:function``; see ``docs/audit.md``. Nothing in ``rewards`` imports this
package (it sits above the scorer and audits it from outside, through the reward functions only).

>>> from rewards.audit import audit, load_problems
>>> def accuracy(prompts, completions, answer, **kw):          # pays any completion ending in the gold answer
...     return [float(c.rstrip().endswith(a)) for c, a in zip(completions, answer)]
>>> report = audit(accuracy, load_problems(3, sources=("gsm8k",)), families=["restate_answer", "visible_slip"])
>>> [(f.family, f.share) for f in report.families]
[('restate_answer', 1.0), ('visible_slip', 1.0)]
"""

from rewards.audit.battery import (
    BAR,
    AuditError,
    AuditProblem,
    AuditReport,
    FamilyResult,
    WeightedSum,
    audit,
    load_problems,
    markdown_table,
    read_problems,
    select_families,
)
from rewards.audit.families import (CONSTRUCTION_FAMILIES, FAMILIES, PROPERTIES, Family, MessageCompletion,
                                    faithful_completion)

__all__ = [
    "BAR", "CONSTRUCTION_FAMILIES", "FAMILIES", "MessageCompletion", "PROPERTIES",
    "AuditError", "AuditProblem", "AuditReport", "Family", "FamilyResult",
    "WeightedSum", "audit", "faithful_completion", "load_problems", "markdown_table", "read_problems",
    "select_families",
]
