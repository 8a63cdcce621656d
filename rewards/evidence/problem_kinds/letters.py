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

__all__ = ["LetterCountRule", "named_words"]

_APPLIES = re.compile(r"\bletters?\b", re.I)
_SPELLED = re.compile(r"\b(?:[Nn]ames?|[Ww]ords?|[Ss]pell\w*)\b|[\"“][^\"”\n]{2,60}[\"”]|\b[A-Z]{2,}\b")
"""What a problem counts letters of: a name, a word, something spelled, quoted or written in capitals. Letters to
mail ("four letters to mail", "60 letters needing stamps") are none: there a letter count would mint 2-30."""
_CLAIM = re.compile(r"(?:\bthe\s+(?:word|name)\s+)?[\"'“‘]?([A-Za-z]{2,30})[\"'”’]?(?:['’]s?\s+(?:first\s+|last\s+)?name)?"
                    r"\s+(?:has|contains|is\s+made\s+(?:up\s+)?of)\s+(\d{1,2}|[a-z]+)\s+letters\b")
_WORD_COUNTS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                            "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
                                            .split())}
MAX_CHARS = 2000
"""Only the first this many characters of a step are read."""


def named_words(problem: str) -> set[str]:
    """The words the problem writes as a name or a word in its own right, lowercased: capitalised where no sentence
    starts (``Sarah``), in capitals (``YEAR``) or in quotes (``"apple"``). A common word of the problem's prose
    ("remaining", "letters") is no word whose letters it counts: a count of it would mint a number 2-30 at will.

    >>> sorted(named_words('Sarah spells "apple". The word YEAR has four. Remaining ones count, remaining ones stay.'))
    ['apple', 'sarah', 'year']
    """
    out = set()
    found = list(re.finditer(r"[A-Za-z]+", problem))
    lowercase = {m.group(0) for m in found if m.group(0).islower()}
    for m in found:
        word = m.group(0)
        before = problem[:m.start()].rstrip()
        quoted = before[-1:] in "\"'“‘" and problem[m.end():m.end() + 1] in "\"'”’"
        if word[0].isupper() and (not before or before[-1] in ".!?\"“"):  # a sentence's first word: a name only
            capital = word.lower() not in lowercase and word.lower() not in _OPENERS  # where nothing says otherwise
        else:
            capital = word[0].isupper()
        if quoted or capital or word.isupper() and len(word) > 1:
            out.add(word.lower())
    return out


_OPENERS = frozenset("""a an the if how what which who when where why she he they it its in on at each every there
this that these those after before then for with his her their its one some all if so but and or as by from""".split())


class LetterCountRule(ProblemKindRule):
    name = "letters"

    def applies(self, problem: str) -> bool:
        return bool(_APPLIES.search(problem)) and bool(_SPELLED.search(problem))

    def counted(self, problem: str, text: str) -> list[Fraction]:
        """The letter counts ``text`` states right about a word the problem writes."""
        words = named_words(problem)
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
