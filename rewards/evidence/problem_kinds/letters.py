r"""Letter counts: a problem that counts the letters of a name or a word ("adding the number of letters in the
player's name plus twice the player's age"). A step that states how many letters a word *of the problem* has —
"Sarah's name has 5 letters", "the word APPLE has 5 letters", "Sarah has 5 letters" — states a fact the rule checks by
counting: where the count is right, the number is reached (a fact the checker verifies, not a number from nowhere);
where it is wrong, or the word is not in the problem, nothing is licensed (the number stays a stray claim).

>>> rule = LetterCountRule()
>>> rule.applies("The game adds the number of letters in the player's name. Sarah is 9 years old.")
True
>>> [str(v) for v in rule.counted("Sarah is 9. The game adds the letters in her name.", "Sarah's name has 5 letters.")]
['5']
>>> rule.counted("Sarah is 9. The game adds the letters in her name.", "Sarah's name has 6 letters.")
[]
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING

from rewards.evidence.problem_kinds.base import ProblemKindRule
from rewards.evidence.quantities import value_key

if TYPE_CHECKING:  # pragma: no cover
    from rewards.evidence.builder import DataflowBuilder
    from rewards.evidence.model import StepFlow

__all__ = ["LetterCountRule"]

_APPLIES = re.compile(r"\bletters?\b", re.I)
_CLAIM = re.compile(r"(?:\bthe\s+(?:word|name)\s+)?[\"'“‘]?([A-Za-z]{2,30})[\"'”’]?(?:['’]s?\s+(?:first\s+|last\s+)?name)?"
                    r"\s+(?:has|contains|is\s+made\s+(?:up\s+)?of)\s+(\d{1,2}|[a-z]+)\s+letters\b")
_WORD_COUNTS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                            "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
                                            .split())}
MAX_CHARS = 2000
"""Only the first this many characters of a step are read."""


class LetterCountRule(ProblemKindRule):
    name = "letters"

    def applies(self, problem: str) -> bool:
        return bool(_APPLIES.search(problem))

    def counted(self, problem: str, text: str) -> list[Fraction]:
        """The letter counts ``text`` states right about a word the problem writes."""
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", problem)}
        out = []
        for m in _CLAIM.finditer(text[:MAX_CHARS]):
            word, count = m.group(1), m.group(2)
            n = int(count) if count.isdigit() else _WORD_COUNTS.get(count.lower())
            if n is not None and word.lower() in words and len(word) == n:
                out.append(Fraction(n))
        return out

    def before_step(self, builder: DataflowBuilder, flow: StepFlow, text: str) -> None:
        for value in self.counted(builder.problem, text):
            builder.strict.add(value_key(value))
            builder.known.add(value_key(value))
