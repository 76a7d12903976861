"""What the messages show: an edit that would change nothing is known as such, a chat can be
forgotten alone, and an edit that failed on the way is remembered until settled."""

from __future__ import annotations

from bot.service.shown import Shown

GROUP, OTHER = -100, -200


def test_a_message_shows_what_was_last_remembered() -> None:
    shown = Shown()
    assert not shown.shows(GROUP, 1, 111)
    shown.remember(GROUP, 1, 111)
    assert shown.shows(GROUP, 1, 111)
    assert not shown.shows(GROUP, 1, 222) and not shown.shows(OTHER, 1, 111)
    shown.remember(GROUP, 1, 222)
    assert shown.shows(GROUP, 1, 222) and not shown.shows(GROUP, 1, 111)


def test_forgetting_a_chat_forgets_only_that_chat() -> None:
    shown = Shown()
    for message_id in (1, 2):
        shown.remember(GROUP, message_id, 111)
        shown.remember(OTHER, message_id, 111)
    shown.forget_chat(GROUP)
    assert not shown.shows(GROUP, 1, 111) and not shown.shows(GROUP, 2, 111)
    assert shown.shows(OTHER, 1, 111) and shown.shows(OTHER, 2, 111)


def test_a_failed_edit_is_unsure_until_settled_once() -> None:
    shown = Shown()
    assert not shown.settle(GROUP, 1)
    shown.edit_failed(GROUP, 1)
    shown.forget_chat(GROUP)  # what it shows is forgotten, not that an edit may land late
    assert not shown.settle(GROUP, 2)
    assert shown.settle(GROUP, 1)
    assert not shown.settle(GROUP, 1)


def test_only_the_newest_messages_are_remembered() -> None:
    shown = Shown(size=2)
    for message_id in (1, 2, 3):
        shown.remember(GROUP, message_id, 111)
    assert not shown.shows(GROUP, 1, 111)
    assert shown.shows(GROUP, 2, 111) and shown.shows(GROUP, 3, 111)
