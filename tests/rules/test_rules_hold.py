"""dominocam.rules.hold: when a ruling waits for the host, from the ledger and the verdict (issue
32); and rules.ruling's words for a boneyard nobody counted."""

from __future__ import annotations

import pytest
from factories import make_state, t

from dominocam.rules import check, get_variant, ruling
from dominocam.rules.hold import (
    HoldReason,
    boneyard_known,
    hold_reasons,
    judged_boneyard,
    rests_on_absence,
    verdict_hold,
)
from dominocam.rules.ledger import BoneyardReport, HandReport, TableReport, reconcile

# A Draw round of two dealt 7 each: 0-1 1-2 on the table (ends 0 and 2), 12 tiles in the
# hands, none with a 0 or a 2, and 14 left: nobody can play.
TABLE = TableReport(face_up=(t(0, 1), t(1, 2)))
ANA = (t(3, 3), t(3, 4), t(3, 5), t(3, 6), t(4, 4), t(4, 5))
BEN = (t(4, 6), t(5, 5), t(5, 6), t(6, 6), t(1, 1), t(1, 3))


def draw_ledger(boneyard: BoneyardReport, ana: tuple = ANA):
    hands = [HandReport.confirmed("Ana", ana), HandReport.confirmed("Ben", BEN)]
    return reconcile(get_variant("draw"), hands, TABLE, boneyard)


def draw_verdict(boneyard: int = 0, ana: tuple = ANA):
    hands = {"Ana": ana, "Ben": BEN}
    return check(
        make_state("draw", hands=hands, ends={"left": 0, "right": 2}, set=6, boneyard=boneyard)
    )


@pytest.mark.parametrize(
    ("report", "known"),
    [
        (BoneyardReport.unknown(), False),  # the ledger derives 14: shown, never ruled on
        (BoneyardReport.entered(0), True),
        (BoneyardReport.counted(2), True),
    ],
)
def test_only_a_counted_or_entered_boneyard_is_known(report: BoneyardReport, known: bool) -> None:
    ledger = draw_ledger(report)
    assert boneyard_known(ledger) is known


def test_nobody_able_to_play_with_an_unknown_boneyard_is_held() -> None:
    ledger = draw_ledger(BoneyardReport.unknown())
    assert ledger.adds_up and ledger.boneyard.count == 14  # derived
    assert verdict_hold(ledger, draw_verdict()) == (HoldReason.BONEYARD_UNKNOWN,)


def test_someone_able_to_play_is_ruled_whatever_the_boneyard() -> None:
    ana = (t(0, 3), *ANA[1:])  # 0-3 plays on the 0
    ledger = draw_ledger(BoneyardReport.unknown(), ana)
    verdict = draw_verdict(ana=ana)
    assert not rests_on_absence(verdict)
    assert verdict_hold(ledger, verdict) == ()


def test_a_known_boneyard_is_ruled_and_a_contradiction_is_held() -> None:
    assert verdict_hold(draw_ledger(BoneyardReport.entered(14)), draw_verdict(14)) == ()
    too_many = draw_ledger(BoneyardReport.entered(15))  # 2 + 12 + 15 = 29 tiles
    assert verdict_hold(too_many, draw_verdict(15)) == (HoldReason.DOES_NOT_ADD_UP,)


def test_a_game_that_never_draws_needs_no_boneyard() -> None:
    hands = [HandReport.confirmed("Ana", ANA), HandReport.confirmed("Ben", BEN)]
    ledger = reconcile(get_variant("block"), hands, TABLE)
    assert boneyard_known(ledger) and ledger.sleeping.count == 14
    verdict = check(
        make_state("block", hands={"Ana": ANA, "Ben": BEN}, ends={"l": 0, "r": 2}, set=6)
    )
    assert verdict.blocked and verdict_hold(ledger, verdict) == ()


def test_readings_that_cannot_be_judged_are_held() -> None:
    ledger = draw_ledger(BoneyardReport.entered(14), ana=(*ANA[:-1], t(1, 1)))  # 1-1 twice
    assert verdict_hold(ledger, None) == (HoldReason.DOES_NOT_ADD_UP,)


def test_the_ruling_says_condition_2_is_not_known() -> None:
    state = make_state("draw", hands={"Ana": ANA, "Ben": BEN}, ends={"l": 0, "r": 2}, set=6)
    text = ruling(check(state), state, boneyard_known=False)
    assert "Condition 2, boneyard exhausted: NOT KNOWN. Nobody counted the boneyard." in text
    assert "with the boneyard empty" not in text and "The boneyard is empty" not in text
    assert "a block still needs the boneyard's count" in text
    known = ruling(check(state), state)
    assert "Condition 2, boneyard exhausted: HOLDS. The boneyard is empty." in known
    # A game that never draws has nothing to count: the flag changes nothing.
    block = make_state("block", hands={"Ana": ANA, "Ben": BEN}, ends={"l": 0, "r": 2}, set=6)
    assert ruling(check(block), block, boneyard_known=False) == ruling(check(block), block)


def test_a_block_over_face_down_tiles_of_unsaid_place_waits_for_the_counts() -> None:
    hands = [HandReport.confirmed("Ana", ANA), HandReport.confirmed("Ben", BEN)]
    state = make_state("block", hands={"Ana": ANA, "Ben": BEN}, ends={"l": 0, "r": 2}, set=6)
    pile = TableReport(face_up=TABLE.face_up, face_down=14)
    ledger = reconcile(get_variant("block"), hands, pile)
    assert ledger.adds_up and not ledger.closes
    assert verdict_hold(ledger, check(state)) == (HoldReason.COUNTS_OPEN,)


def test_an_empty_hand_rests_on_absence_too() -> None:
    ben = BEN + ANA  # Ana went out; her tiles are Ben's for the count
    hands = [HandReport.confirmed("Ana", ()), HandReport.confirmed("Ben", ben)]
    ledger = reconcile(get_variant("draw"), hands, TABLE)  # 2 + 12 + 14 left = 28
    verdict = check(make_state("draw", hands={"Ana": (), "Ben": ben}, ends={"l": 0}, set=6))
    assert verdict.went_out == ("Ana",) and rests_on_absence(verdict)
    # A domino needs no boneyard for its condition, but its counts stay open without one:
    # a tile left out of Ben's hand could lie there unseen.
    assert verdict_hold(ledger, verdict) == (HoldReason.COUNTS_OPEN,)
    counted = reconcile(get_variant("draw"), hands, TABLE, BoneyardReport.counted(14))
    assert counted.closes and verdict_hold(counted, verdict) == ()


def test_hands_to_confirm_come_first_and_alone() -> None:
    too_many = draw_ledger(BoneyardReport.entered(15))
    reasons = hold_reasons(too_many, True, blocks=True, to_confirm=("Ben",))
    assert reasons == (HoldReason.HANDS_TO_CONFIRM,)


def test_the_hosts_word_answers_the_readings_never_a_block_s_boneyard() -> None:
    too_many = draw_ledger(BoneyardReport.entered(15))
    assert hold_reasons(too_many, True, blocks=True, overridden=True) == ()
    unknown = draw_ledger(BoneyardReport.unknown())
    held = hold_reasons(unknown, True, blocks=True, overridden=True, host_rules=True)
    assert held == (HoldReason.BONEYARD_UNKNOWN,)


def test_the_hosts_own_ruling_answers_counts_that_do_not_close() -> None:
    hands = [HandReport.confirmed("Ana", ANA), HandReport.confirmed("Ben", BEN)]
    pile = TableReport(face_up=TABLE.face_up, face_down=14)
    ledger = reconcile(get_variant("block"), hands, pile)
    assert hold_reasons(ledger, True) == (HoldReason.COUNTS_OPEN,)
    assert hold_reasons(ledger, True, host_rules=True) == ()
    assert hold_reasons(ledger, False) == ()  # play goes on: nothing absent is claimed


def test_the_boneyard_judged_is_never_a_derived_count() -> None:
    derived = draw_ledger(BoneyardReport.unknown())
    assert derived.boneyard.count == 14 and judged_boneyard(derived) == 0
    assert judged_boneyard(draw_ledger(BoneyardReport.entered(14))) == 14
