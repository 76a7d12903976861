"""A table's seats as the screens show them (computer players by their names in the reader's
language), and whose seat is whose."""

from __future__ import annotations

from bot.i18n import get_translator
from bot.service.seat_lookup import seat_infos, seat_of_user
from bot.storage import SeatRecord, TableRecord, TableStatus

TABLE = TableRecord(
    1,
    -100,
    TableStatus.PLAYING,
    "street",
    7,
    1,
    seats=[
        SeatRecord(0, 7, "Anna"),
        SeatRecord(1, None, "Ivan", "strong"),
        SeatRecord(2, None, "Ivan", "strong", left_user_id=8, replaced=True),  # a person
        SeatRecord(3, 9, "Boris", "basic", away=True),
    ],
)


def test_computer_players_are_named_in_the_readers_language() -> None:
    russian = [info.name for info in seat_infos(TABLE, get_translator("ru"))]
    assert russian == ["Anna", "Иван", "Ivan", "Boris"]
    infos = seat_infos(TABLE, get_translator("en"))
    assert [info.name for info in infos] == ["Anna", "Ivan", "Ivan", "Boris"]
    assert infos[3].away and not infos[0].away


def test_the_seat_of_each_person() -> None:
    assert [seat_of_user(TABLE, user) for user in (7, 9, 8, 404)] == [0, 3, None, None]
