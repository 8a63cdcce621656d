"""Number-theory claims: congruences, division with remainder, gcd/lcm values and base-b numerals."""

import pickle

import pytest

import rewards
import rewards.checks.claims
from rewards.checks.claims.congruences import check_trace, congruence_checks, remainder_checks, substitution_checks

# (step text, refuted?) — the true rows are the shapes of real slips in ProcessBench MATH; the false rows are correct
# statements written the same ways (ProcessBench correct steps and MATH-500 gold solutions) that must stay unflagged
TABLE = [
    # congruences
    (r"So $n \equiv 56 \equiv \boxed{6} \pmod{17}$.", True),
    (r"So $n \equiv 56 \equiv \boxed{5} \pmod{17}$.", False),
    (r"\[327 \equiv 8 \pmod{17}.\]", True),
    (r"\[327 \equiv 4 \pmod{17}.\]", False),
    (r"We have $17 \equiv 3 \mod 5$.", True),
    (r"We have $17 \equiv 2 \mod 5$.", False),
    (r"\begin{align*} 2^{10} &\equiv 1024 \\ &\equiv 3 \pmod 7 \end{align*}", True),
    (r"\begin{align*} 2^{10} &\equiv 1024 \\ &\equiv 2 \pmod 7 \end{align*}", False),
    (r"\begin{align*} &1+12+123+1234+12345+123456\\ &\qquad+1234567+12345678\\ "
     r"&\quad\equiv 1+3+6+10+15+21+28+36\pmod 9 \\ &\quad\equiv 30\pmod 9 \\ &\quad\equiv \boxed{3}\pmod 9. "
     r"\end{align*}", False),                                                   # MATH-500 gold, continued lines
    (r"$5 \cdot 3 = 15 \not\equiv 1 \pmod{7}$", True),
    (r"$5 \cdot 1 = 5 \not\equiv 1 \pmod{7}$", False),
    ("Since 39 is congruent to 2 modulo 19, we are done.", True),
    ("Since 39 is congruent to 1 modulo 19, we are done.", False),
    ("So 2^3 = 8 = 2 (mod 7).", True),
    ("So 2^3 = 8 = 1 (mod 7).", False),
    (r"\[4^4 = (4^2)^2 = (-1)^2 = 1 \pmod{17}.\]", False),                     # loose '=' inside a congruence
    (r"$13^{-1} \equiv 15 \pmod{19}$", True),                                   # 13 * 15 = 195 = 5 (mod 19)
    (r"$17^{-1}\equiv \boxed{44}\pmod{83}$", False),                           # an inverse read as a residue
    (r"$b \equiv 10 \equiv 3 \pmod{8}$", True),
    (r"$b \equiv 10 \equiv 2 \pmod{8}$", False),
    (r"\[ 2n + 11 \equiv 1 \pmod{3} \implies 2n \equiv -10 \pmod{3} \implies 2n \equiv 1 \pmod{3} \]", True),
    (r"$2m\equiv 3\pmod 7\implies 8m \equiv 3\cdot 4\pmod 7\implies m\equiv 12\equiv 5\pmod 7$", False),
    (r"$x \equiv 3 \pmod 4$", False),                                           # a variable
    (r"$X\equiv 4,9\pmod{10}$", False),                                         # a list
    (r"\( x^{10} = (x^2)^5 \equiv 1^5 \equiv 1 \pmod{x^2 - 1} \)", False),     # a polynomial modulus
    (r"$568^\circ \equiv 208^\circ \pmod{360^\circ}$", False),
    (r"\[37 \equiv 17 - 20\]", False),                                          # no modulus written
    (r"$17 \bmod 5 = 3$", False),                                               # binary mod: arithmetic's
    # division with remainder
    ("1529 ÷ 6 = 255 with a remainder of 4.", True),
    ("1529 ÷ 6 = 254 with a remainder of 5.", False),
    (r"First, \(770 \div 333 = 2\) with a remainder of \(58\).", True),
    (r"First, \(410 \div 333 = 1\) with a remainder of \(77\).", False),
    (r"- \(1121 \div 3^5 = 1121 \div 243 = 4\) remainder \(133\)", True),
    (r"- \(52 \div 3^3 = 52 \div 27 = 1\) remainder \(25\)", False),
    (r"$$ 355 \div 6 = 59\, \text{R}\, 1 $$", False),
    (r"$$ 355 \div 6 = 58\, \text{R}\, 5 $$", True),
    (r"\[ 289 \div 17 = 17 \quad \text{with a remainder of} \quad 0 \]", False),
    ("706 divided by 7 is 101 remainder 6.", True),
    ("9 divided by 6 is 1 with a remainder of 3.", False),
    ("7 goes into 50 six times with remainder 8.", True),
    ("7 goes into 50 seven times with remainder 1.", False),
    (r"Converting: \( \frac{36}{5} = 7 \) full pens (with a remainder of 2).", True),
    (r"Converting: \( \frac{36}{5} = 7 \) full pens (with a remainder of 1).", False),
    ("When we divide 2004 by 12, we get a quotient of 167 and a remainder of 4.", True),
    ("Dividing 360 into 2250 gives a quotient of 6 with a remainder of 90.", False),
    (r"The remainder when $2^{10}$ is divided by 7 is 3.", True),
    (r"The remainder when $2^{10}$ is divided by 7 is 2.", False),
    ("So, 1529 divided by 6 leaves a remainder of 4.", True),
    ("Therefore, the remainder of 194 (mod 11) is: \\boxed{9}.", True),
    ("The least prime greater than 25 that will have a remainder of 2 when divided by 25 is 127.", False),
    ("Only 49 has a remainder of 1 when divided by 2, 3, 4, or 6.", False),
    (r"\[ 14609 \div 7 = 2087 \text{ weeks and } 0 \text{ days remainder} \]", False),
    ("12 ÷ 4 = 3 per group, or 5 groups", False),
    # gcd / lcm
    (r"$\gcd(12, 18) = 3$", True),
    (r"$\gcd(12, 18) = 6$ and $\text{lcm}(4,6) = 12$", False),
    (r"$\mathop{\text{lcm}}[4,6] = 24$", True),
    (r"\begin{align*} \text{gcd}\,(3339,2961) &=\text{gcd}\,(3339-2961,2961)\\ &=\text{gcd}\,(378,2961)\\ "
     r"&=\text{gcd}\,(378,315) \end{align*}", False),
    ("The GCD of 187 and 77 is 13 because 187 = 13 * 14.", True),
    ("The greatest common divisor (GCD) of 12 and 18 is 6.", False),
    # the value in a later sentence about "the GCD" (ProcessBench MATH math-550's labelled error), or after ", which is"
    (r"We find the greatest common divisor (GCD) of \(2187\) and \(5625\). Using the Euclidean algorithm, we find that "
     r"the GCD is \(3\). Therefore, we divide both by \(3\).", True),
    (r"We find the greatest common divisor (GCD) of \(2187\) and \(5625\). Using the Euclidean algorithm, we find that "
     r"the GCD is \(9\). Therefore, we divide both by \(9\).", False),
    (r"by finding the GCD of \(729\) and \(1875\), which is \(3\):", False),
    (r"by finding the GCD of \(729\) and \(1875\), which is \(5\):", True),
    ("We find the LCM of 4 and 6. Their GCD is 2.", False),                    # another kind: not its value
    ("We find the GCD of 12 and 18, then the GCD of 6 and 9; the GCD is 3.", False),  # the nearest one is meant
    (r"we keep adding the least common multiple of $7$, $11$, and $13$ until we go over. The least common multiple "
     r"is $7 \cdot 11 \cdot 13 =1001$.", False),                              # MATH-500 gold: the value is a product
    ("The least common multiple (LCM) of 12 and 14 is 168.", True),
    ("The least common multiple (LCM) of 12 and 13 is 156, because they are coprime.", False),
    (r"If $n = 6$, then $\gcd(n + 7, 2n + 1) = \gcd(13,13) = 13$.", False),
    # base-b numerals
    (r"we find that $441_{10} = 1202_7$.", True),
    (r"we find that $441_{10} = 1200_7$.", False),
    (r"Altogether, we find that $10101001110_{2}=\boxed{2516_8}$.", False),
    (r"$6_8 \cdot 7_8 = 42_{10} = 52_8.$", False),
    (r"$123_{4} = 1\cdot 16 + 2 \cdot 4 + 3 = 28$", True),
    (r"$129_{4} = 5$", False),                                                  # 9 is not a base-4 digit
    (r"$a_{12} = 5$ and $F_1 = 1$", False),                                     # subscripts, not bases
]


@pytest.mark.parametrize("text,refuted", TABLE)
def test_claim_table(text, refuted):
    found = check_trace([text], "")
    assert bool(found) is refuted, [c.detail for _, c in found]
    for step, check in found:
        assert step == 0 and check.ok is False and check.detail


def test_details_say_what_is_false():
    (_, c), = check_trace(["1529 ÷ 6 = 255 with a remainder of 4."], "")
    assert c.detail == "1529 ÷ 6 = 255 with a remainder of 4 is false: 6·255 + 4 = 1534, not 1529 (1529 = 6·254 + 5)"
    (c,) = congruence_checks(r"$3^3 = 27 \equiv 5 \pmod 7$")
    assert "27 ≡ 6 and 5 ≡ 5 (mod 7)" in c.detail
    (c,) = substitution_checks(r"$\gcd(12, 18) = 3$")
    assert "gcd(12, 18) = 6" in c.detail
    (c,) = remainder_checks("The remainder when 100 is divided by 7 is 3.")
    assert "the remainder is 2" in c.detail


def test_huge_values_are_not_printed():
    (c,) = congruence_checks(r"$2^{1000} \equiv 3 \pmod{7}$")
    assert "the left side" in c.detail and len(c.detail) < 200


@pytest.mark.parametrize("junk", [
    "", "x" * 5000, r"\equiv" * 500, r"\pmod{" * 300, "remainder " * 400, r"\gcd(" * 300, "1_2" * 1000,
    r"$2^{99999} \equiv 1 \pmod{10^{9999}}$", r"$\gcd(10^{5000}, 3) = 1$", "1 ÷ 0 = 3 with a remainder of 1",
    r"$5 \equiv 5 \pmod{0}$", None,
])
def test_odd_text_never_raises(junk):
    assert isinstance(check_trace([junk, "1529 ÷ 6 = 255 with a remainder of 4."], ""), list)


def test_picklable():
    assert pickle.loads(pickle.dumps(check_trace)) is check_trace


def test_a_refuted_remainder_makes_the_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    problem = "What is the remainder when 1529 is divided by 6?"
    steps = ["We divide 1529 by 6.", "1529 ÷ 6 = 255 with a remainder of 4.", "So the remainder is \\boxed{4}."]
    try:
        result = rewards.score_trace(problem, steps=steps)
        assert result.suspect_step == 1
        assert any("with a remainder of 4 is false" in r for r in result.step_checks[1].reasons)
    finally:
        step_equations.cache_clear()


def test_a_refuted_congruence_makes_the_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    problem = "Solve $5n \\equiv 8 \\pmod{17}$ for the smallest nonnegative $n$."
    steps = ["Since $5 \\cdot 7 = 35 \\equiv 1 \\pmod{17}$, 7 is the inverse of 5.",
             "Multiplying by 7, $n \\equiv 56 \\equiv \\boxed{6} \\pmod{17}$."]
    try:
        assert rewards.score_trace(problem, steps=steps).suspect_step == 1
    finally:
        step_equations.cache_clear()
