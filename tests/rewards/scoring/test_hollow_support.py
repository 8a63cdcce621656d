"""Reward-mode rules that keep a derivation from paying when it only looks like one: a copied answer, a chain that
concludes something else, skipped problem quantities, and a result stated without an equation."""

from rewards import RAFSConfig, faithful_accuracy_reward, rafs_reward, score_trace

PIE = ("Nancy bought a pie sliced it into 8 pieces. She gave 1/2 to Joe and Darcy, and she gave 1/4 to Carl. "
       "How many slices were left?")
PIE_FAITHFUL = ("The total number of slices she gave to Joe and Darcy is 1/2 x 8 = 4.\n"
                "The total slice she gave to Carl is 1/4 x 8 = 2.\n"
                "Therefore, the total slices left is 8 - 4 - 2 = 2.\n#### 2")
DUCKS = ("Janet's ducks lay 16 eggs per day. She eats 3 for breakfast every morning and bakes muffins for her "
         "friends every day with 4. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")
DUCKS_FAITHFUL = "She sells 16 - 3 - 4 = 9 eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18"
REWARD = RAFSConfig.coerce(None, use="reward")


def _fa(problem: str, *completions: str, gold: str) -> list[float | None]:
    return faithful_accuracy_reward([problem] * len(completions), list(completions), answer=[gold] * len(completions))


def _rafs(problem: str, *completions: str, gold: str) -> list[float | None]:
    return rafs_reward([problem] * len(completions), list(completions), answer=[gold] * len(completions))


def test_an_answer_carried_through_cancelling_operands_is_not_supported():
    gamed = "8 - 8 + 2 = 2\n#### 2"  # 2 is a problem quantity ("half"/"1/2" -> 2): the other operand cancels
    result = score_trace(PIE.replace("1/4 to Carl", "2 slices to Carl"), gamed, gold="2", config=REWARD)
    assert result.supported is False
    assert any("carried through unchanged" in r for r in result.reasons)
    assert _fa(PIE.replace("1/4 to Carl", "2 slices to Carl"), gamed, gold="2") == [0.5]


def test_a_chain_that_concludes_another_value_does_not_support_an_earlier_coincidence():
    skipped = PIE_FAITHFUL.replace("8 - 4 - 2 = 2", "8 - 4 = 4")       # the answer 2 is only step 1's result
    swapped = PIE_FAITHFUL.replace("8 - 4 - 2 = 2", "8 - 4 + 2 = 6")
    for text in (skipped, swapped):
        result = score_trace(PIE, text, gold="2", config=REWARD)
        assert result.supported is False and not result.faithful
        assert any("the chain concludes" in r for r in result.reasons)
    fa = _fa(PIE, PIE_FAITHFUL, skipped, swapped, gold="2")
    assert fa == [1.0, 0.5, 0.5]
    rafs = _rafs(PIE, PIE_FAITHFUL, skipped, swapped, gold="2")
    assert rafs[0] > max(rafs[1:])


def test_evaluation_keeps_the_softer_view():
    skipped = PIE_FAITHFUL.replace("8 - 4 - 2 = 2", "8 - 4 = 4")
    assert not any("the chain concludes" in r for r in score_trace(PIE, skipped, gold="2").reasons)


def test_skipping_problem_quantities_costs_support():
    shortcut = "16 + 2 = 18 dollars.\n#### 18"  # right answer from two of the four given quantities
    faithful, cut = _rafs(DUCKS, DUCKS_FAITHFUL, shortcut, gold="18")
    assert faithful > cut
    result = score_trace(DUCKS, shortcut, gold="18", config=REWARD)
    assert any("uses 2 of the problem's 4 stated quantities" in r for r in result.reasons)
    off = RAFSConfig.coerce({"unused_exponent": 0.0}, use="reward")
    assert score_trace(DUCKS, shortcut, gold="18", config=off).components["S_RA"] > result.components["S_RA"]


def test_a_result_stated_without_an_equation_withholds_support_and_pays_no_more_than_a_visible_slip():
    """Unsupported is not wrong: the hidden slip's step is not refuted (no suspect step, its q stays), but the claim
    stands before the answer's step, so the derivation is unsupported and pays the unverifiable floor."""
    visible = PIE_FAITHFUL.replace("1/2 x 8 = 4", "1/2 x 8 = 5")
    hidden = PIE_FAITHFUL.replace("is 1/2 x 8 = 4", "is 5")         # the slip's result, with no equation to check
    arrow = PIE_FAITHFUL.replace("1/2 x 8 = 4", "1/2 x 8 → 5")
    fa = _fa(PIE, PIE_FAITHFUL, visible, hidden, arrow, gold="2")
    assert fa == [1.0, 0.5, 0.5, 0.5]
    rafs = _rafs(PIE, PIE_FAITHFUL, visible, hidden, arrow, gold="2")
    assert rafs[2] <= rafs[1] + 0.005 and rafs[3] <= rafs[1] + 0.005 < rafs[0]
    result = score_trace(PIE, hidden, gold="2", config=REWARD)
    assert result.suspect_step is None and result.step_checks[0].q >= 0.5 and result.supported is False
    assert "without an equation" in " ".join(result.step_checks[0].reasons)
    assert any("5 (step 0, stated without a derivation)" in why for why in result.reasons)


def test_a_restated_problem_quantity_in_prose_is_not_a_stray_claim():
    text = "Janet's ducks lay 16 eggs and she eats 3.\n" + DUCKS_FAITHFUL
    assert _fa(DUCKS, text, gold="18") == [1.0]


def test_figure_code_states_no_quantity_but_its_labels_do():
    # MATH solutions draw with Asymptote: coordinates and pen sizes are not claims; a label's text is prose
    figure = "[asy]\nsize(150);\ndraw((0,0)--(6,0)--(6,7)--cycle);\n[/asy]\n"
    assert _fa(PIE, figure + PIE_FAITHFUL, gold="2") == [1.0]
    labelled = '[asy]\nlabel("Joe gets 5 slices", (0,0));\n[/asy]\n'
    result = score_trace(PIE, labelled + PIE_FAITHFUL, gold="2", config=REWARD)
    assert result.suspect_step is None and result.supported is False  # withheld support, not refuted
    assert any("states 5 without an equation" in " ".join(c.reasons) for c in result.step_checks)


def test_angle_sums_are_grounded_where_the_text_speaks_of_angles():
    problem = "Two angles of a triangle measure 50 and 60 degrees. What is the third angle, in degrees?"
    honest = "The angles of a triangle sum to 180, so 180 - 50 - 60 = 70.\n#### 70"
    assert _fa(problem, honest, gold="70") == [1.0]
    stripped = "Two bags hold 50 and 60 marbles. How many more marbles fit if the box holds the rest?"
    assert _fa(stripped, "180 - 50 - 60 = 70.\n#### 70", gold="70") == [0.5]  # no angle: 180 comes from nowhere


def test_one_step_whose_operands_cancel_does_not_support_a_constant_answer():
    gamed = "8 - 8 + 1 = 1\n#### 1"  # 1 is a basic constant: no edit of the problem's 8 moves it
    problem = "Nancy cut a pie into 8 pieces and ate all but one. How many pieces are left?"
    result = score_trace(problem, gamed, gold="1", config=REWARD)
    assert result.supported is False and any("operands cancel" in r for r in result.reasons)
    honest = "8 - 7 = 1 piece is left.\n#### 1"
    assert _fa(problem.replace("all but one", "7 of them"), honest, gamed, gold="1") == [1.0, 0.5]


def test_a_percent_transform_does_not_ground_a_constant():
    # 300 is not "3 percent": 3 is a basic constant here, not a quantity of the problem; only quantities have
    # percent and reciprocal forms
    problem = "Sam has 16 pens and gives away 9 of them. How many pens does he have left?"
    honest, padded = "16 - 9 = 7 pens.\n#### 7", "16 - 9 + 300 - 300 = 7 pens.\n#### 7"
    result = score_trace(problem, padded, gold="7", config=REWARD)
    assert any("ungrounded quantity feeds the answer: 300" in r for r in result.reasons)
    assert _fa(problem, honest, padded, gold="7") == [1.0, 0.5]


def test_a_choice_among_candidates_or_a_check_against_a_given_is_not_disowned():
    routes = ("One route is 1500 miles at 75 MPH. The other is 750 miles at 25 MPH. How long does the faster "
              "route take, in hours?")
    choice = ("The first route takes 1500 / 75 = 20 hours.\nThe second takes 750 / 25 = 30 hours.\n"
              "The fastest route takes 20 hours because 20 < 30.\n#### 20")
    abandoned = choice.replace("The fastest route takes 20 hours because 20 < 30.\n", "")
    assert _fa(routes, choice, abandoned, gold="20") == [1.0, 0.5]
    piles = ("Two piles of toys make 120 toys in total, and the larger pile is twice the smaller one. How many toys "
             "are in the larger pile?")
    checked = "The smaller pile is 120 / 3 = 40 toys.\nThe larger is 40 * 2 = 80 toys.\nCheck: 40 + 80 = 120.\n#### 80"
    assert _fa(piles, checked, gold="80") == [1.0]


def test_a_copy_spread_over_steps_is_out_of_reach_and_documented_so():
    # the faithful solution's equal quantities cancel across steps: value-keyed edits cannot tell it from a copy,
    # so only a copy inside one step counts as hollow
    coffee = ("Angie bought 3 lbs. of coffee. Each lb. of coffee brews 40 cups. Angie drinks 3 cups of coffee every "
              "day. How many days will this coffee last her?")
    faithful = "3 lbs * 40 cups per lb = 120 cups.\n120 cups / 3 cups per day = 40 days.\n#### 40"
    one_line = "3 * 40 / 3 = 40 days.\n#### 40"
    assert _fa(coffee, faithful, one_line, gold="40") == [1.0, 0.5]


def test_repeating_the_work_neither_raises_nor_dilutes_step_validity():
    sally = ("Sally sells 50% more boxes on Sunday than on Saturday, 150 boxes on the two days. How many boxes did "
             "she sell on Saturday?")
    body = "Let S be the number of boxes sold on Saturday.\nS+1.5S=150\n2.5S=150\nS=60\nSally sold 60 boxes."
    once, thrice = body + "\n#### 60", "\n".join([body] * 3) + "\n#### 60"
    a, b = (score_trace(sally, t, gold="60", config=REWARD).components["P_R"] for t in (once, thrice))
    assert b <= a + 1e-9
    slip = PIE_FAITHFUL.replace("1/2 x 8 = 4", "1/2 x 8 = 5")
    body = slip.rsplit("\n", 1)[0]
    repeated = "\n".join([body] * 3) + "\n#### 2"
    one, three = (score_trace(PIE, t, gold="2", config=REWARD).components["P_R"] for t in (slip, repeated))
    assert three <= one + 1e-9


def test_a_small_count_added_or_taken_away_needs_a_source():
    # 3 and 4 scale freely (a third, quarters, a triple) but are no amount of their own: an invented "fee of 3"
    problem = "Ann has 16 eggs. She gives 2 to her sister. How many eggs does she have left?"
    honest = "16 - 2 = 14 eggs.\n#### 14"
    invented = "16 - 2 = 14 eggs.\nAfter a fee of 3, 14 - 3 = 11 eggs.\n#### 11"
    result = score_trace(problem, invented, gold="11", config=REWARD)
    assert any("ungrounded quantity feeds the answer: 3" in r for r in result.reasons)
    assert _fa(problem, honest, gold="14") == [1.0] and _fa(problem, invented, gold="11") == [0.5]
    # as a factor it needs no source
    triple = "Ann has 16 eggs and triples them. How many eggs does she have?"
    assert _fa(triple, "16 * 3 = 48 eggs.\n#### 48", gold="48") == [1.0]


def test_an_amount_assembled_from_free_constants_needs_a_source():
    # one constant added is a count (+1, 2 legs); several in one expression are a lucky fee from nowhere
    problem = "Ann has 16 eggs. She gives 5 to her sister. How many eggs does she have left?"
    assert _fa(problem, "16 - 5 = 11 eggs.\n#### 11", gold="11") == [1.0]
    assert _fa(problem, "16 - 5 = 11 eggs.\nShe finds one more: 11 + 1 = 12.\n#### 12", gold="12") == [1.0]
    fee = "16 - 5 = 11 eggs.\nAfter the fees, 11 - 2 - 2 - 1 = 6 eggs.\n#### 6"
    result = score_trace(problem, fee, gold="6", config=REWARD)
    assert any("ungrounded quantity feeds the answer" in r for r in result.reasons)
    assert _fa(problem, fee, gold="6") == [0.5]
    disguised = "16 - 5 = 11 eggs.\nAfter a fee, 11 - 3 * 1 = 8 eggs.\n#### 8"  # 3 * 1 adds 3 all the same
    assert _fa(problem, disguised, gold="8") == [0.5]


def test_figure_tags_do_not_hide_a_prose_claim_and_angles_come_from_the_problem():
    hidden = PIE_FAITHFUL.replace("is 1/2 x 8 = 4.", "is 5.")
    figure = hidden.replace("The total number of slices she gave to Joe and Darcy is 5.",
                            "[asy]\nThe total number of slices she gave to Joe and Darcy is 5.\n[/asy]")
    assert figure != hidden
    assert _fa(PIE, figure, gold="2") == [0.5]  # refuted like the hidden slip it is
    problem = "A class of 20 students shares 540 pencils equally. How many pencils does each student get?"
    assert _fa(problem, "Think of it as an angle: 180 * 3 = 540.\n#### 540", gold="540") == [0.5]


def test_the_step_validity_reward_does_not_pay_a_hollow_derivation_in_full():
    from rewards import rafs_step_validity_reward

    problem = "Nancy cut a pie into 8 pieces and ate 7 of them. How many pieces are left?"
    honest, cancelled = "8 - 7 = 1 piece is left.\n#### 1", "8 - 8 + 1 = 1\n#### 1"
    faithful, hollow = rafs_step_validity_reward([problem] * 2, [honest, cancelled], answer=["1", "1"])
    assert hollow < faithful  # both steps are true; the second carries nothing from the problem
