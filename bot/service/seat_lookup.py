"""A table's seats as the screens show them, and whose seat is whose."""

from __future__ import annotations

from ..i18n import Translator
from ..render.labels import SeatInfo, computer_name
from ..storage import TableRecord


def seat_infos(table: TableRecord, t: Translator) -> list[SeatInfo]:
    """The seats as the screens show them to a reader of ``t``'s language (computer players
    by their names in that language)."""
    return [
        SeatInfo(
            computer_name(t, s.name) if s.ai_level and not s.replaced else s.name,
            s.ai_level,
            s.away,
            s.replaced,
        )
        for s in table.seats
    ]


def seat_of_user(table: TableRecord, user_id: int) -> int | None:
    for s in table.seats:
        if s.user_id == user_id:
            return s.seat
    return None
