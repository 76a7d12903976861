"""The memory of hand presses: when each person last pressed, and a hand owed again once per
ply it shows."""

from __future__ import annotations

from bot.service.presses import Presses


def test_the_last_press_of_each_person() -> None:
    presses = Presses()
    assert presses.last_pressed(7) is None
    presses.pressed(7, 100.0)
    presses.pressed(7, 130.0)
    presses.pressed(8, 110.0)
    assert (presses.last_pressed(7), presses.last_pressed(8)) == (130.0, 110.0)


def test_a_hand_is_owed_again_once_per_ply_it_shows() -> None:
    presses = Presses()
    assert presses.reshow_once(1, 0, 5)
    assert not presses.reshow_once(1, 0, 5)  # a second tap on the same old hand
    assert presses.reshow_once(1, 1, 5) and presses.reshow_once(2, 0, 5)  # other hands
    assert presses.reshow_once(1, 0, 6)  # the hand was shown again, and is old again


def test_only_the_newest_people_are_remembered() -> None:
    presses = Presses(size=2)
    for user_id in (1, 2, 3):
        presses.pressed(user_id, float(user_id))
    assert presses.last_pressed(1) is None and presses.last_pressed(3) == 3.0
