r"""A vector answer reached by scaling a vector (:func:`scaled_vector_answer`).

Projections and their kind end in a scalar times a vector: ``\left( \frac{6}{13} \right) \begin{pmatrix} 2 \\ -3
\end{pmatrix} = \begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}``. The equation reader reads no
matrices, so such an answer is "not derived" however right the work before it. This module reads the trace's math
segments with their matrices, as one sequence of sides (a chain ``a = b = c`` gives three, consecutive segments
continue it), and finds a side that is the answer's vector right after a side ``s \begin{pmatrix} a_1 \\ \dots
\end{pmatrix}`` (a name between them aside: ``\text{proj}_{\mathbf{b}} \mathbf{a} = ...``) with, exactly, ``b_i = s \cdot a_i`` for every component. It is a derivation when:

* every number the scalar writes (``\frac{6}{13}``: 6 and 13; ``-3``) is a problem quantity or a value a verified
  step derived from the problem (``is_reached`` and produced: a basic constant stated bare, the ``10`` of
  ``\frac{2}{10}`` that no step computed, licenses nothing);
* every component of the scaled vector is a problem quantity or such a derived value (its sign aside: the problem's
  ``\begin{pmatrix} 2 \\ -3 \end{pmatrix}`` states 3);
* the product is exact, component by component (Fractions, no tolerance).

Only support is added: a product that does not hold is not a refutation here (the equation reader and the claim
checkers decide what is false). Bounds: at most :data:`MAX_SIDES` sides, vectors of at most
:data:`MAX_COMPONENTS` components; no parser, Fractions only.

>>> scale_of(r"\left( \frac{6}{13} \right) \begin{pmatrix} 2 \\ -3 \end{pmatrix}")
('\\frac{6}{13}', [Fraction(2, 1), Fraction(-3, 1)])
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.latex_algebra import split_top_level
from rewards.evidence.answer_reach import MAX_COMPONENTS, components
from rewards.evidence.quantities import read_numbers, value_key

MAX_SIDES = 60
"""Sides read, from the end of the trace."""
_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$(.+?)\$", re.S)
_VECTOR = re.compile(r"\\begin\{pmatrix\}(.*?)\\end\{pmatrix\}", re.S)
_SCALAR_WRAP = re.compile(r"^\\left\s*\(|\\right\s*\)\s*$|\\cdot\s*$|\\times\s*$")


def _vector(body: str) -> list[Fraction] | None:
    from rewards.checks.answers import named_value  # local: answers imports the trace module (one-way)

    parts = [p.strip() for p in body.split("\\\\")]
    parts = [p for p in parts if p]
    if not 2 <= len(parts) <= MAX_COMPONENTS or any("&" in p for p in parts):
        return None
    values = [named_value(p) for p in parts]
    return None if any(v is None for v in values) else values


def scale_of(side: str) -> tuple[str, list[Fraction]] | None:
    """``(the scalar as written, the vector's components)`` of a side ``s \\begin{pmatrix} ... \\end{pmatrix}``,
    or ``None``."""
    found = list(_VECTOR.finditer(side))
    if len(found) != 1 or side[found[0].end():].strip():
        return None
    scalar = side[:found[0].start()].strip()
    for _ in range(2):
        scalar = _SCALAR_WRAP.sub("", scalar).strip()
    if scalar.startswith("(") and scalar.endswith(")"):
        scalar = scalar[1:-1].strip()
    vector = _vector(found[0].group(1))
    return (scalar, vector) if scalar and vector is not None else None


def _sides(steps: list[str]) -> list[tuple[int, str]]:
    """Every side of every math segment, matrices kept, in order: ``(step, side)``."""
    out = []
    for t, text in enumerate(steps):
        if "pmatrix" not in text:
            continue
        for m in _SEGMENT.finditer(text):
            body = next(g for g in m.groups() if g is not None)
            for part in split_top_level(body):
                part = part.strip().strip(".,;:").strip()
                if part:
                    out.append((t, part))
    return out[-MAX_SIDES:]


def _licensed(builder, value: Fraction) -> bool:
    """A problem quantity, or a value a verified step derived from the problem."""
    key = value_key(value)
    return key in builder.pnum_keys or (builder.is_reached(value) and key in builder.producers)


def scaled_vector_answer(builder, answer: str):
    """``(the component the dataflow follows, the latex_answer_step shape)`` for a vector answer reached by an
    exact scaling of a licensed vector by a licensed scalar (module docstring), or ``None``."""
    from rewards.checks.answers import numeric_value  # local: answers imports the trace module (one-way)

    parts = components(answer)
    if parts is None or "pmatrix" not in answer:
        return None
    target = _vector(_VECTOR.search(answer).group(1)) if _VECTOR.search(answer) else None
    if target is None:
        return None
    sides = _sides(builder.trace.steps)
    for k in range(len(sides) - 1, 0, -1):
        step, side = sides[k]
        if side.startswith("\\boxed{") and side.endswith("}"):
            side = side[len("\\boxed{"):-1].strip()
        match = _VECTOR.fullmatch(side) if "pmatrix" in side else None
        if match is None or _vector(match.group(1)) != target:
            continue
        before = k - 1
        if before > 0 and not re.search(r"\d", sides[before][1]):
            before -= 1  # "(1/5) b", then "proj_b a = (1/5, -3/5)": the name between is no side of the computation
        scaled = scale_of(sides[before][1])
        if scaled is None:
            continue
        scalar_text, vector = scaled
        scalar = numeric_value(scalar_text)
        numbers = [v for v, _ in read_numbers(scalar_text)]
        if scalar is None or not numbers or len(vector) != len(target) or \
                any(scalar * a != b for a, b in zip(vector, target)):
            continue
        if not all(_licensed(builder, abs(v)) or _licensed(builder, v) for v in numbers) or \
                not all(_licensed(builder, v) or _licensed(builder, -v) or v == 0 for v in vector):
            continue
        followed = next((b for b in target if b != 0), target[0])
        operands = [*numbers, *[v for v in vector if v != 0]]
        depends = {builder.producers[value_key(v)] for v in numbers if value_key(v) in builder.producers}
        return followed, (step, operands, {t for t in depends if t < step}, {step: set(target) | set(numbers)})
    return None
