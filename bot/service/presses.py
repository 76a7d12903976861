"""What this process remembers of recent hand presses, to spare sounds and writes."""

from __future__ import annotations

from ..lru import LRU

PRESSES_KEPT = 4096  # people and hands remembered


class Presses:
    def __init__(self, size: int = PRESSES_KEPT) -> None:
        # When each person last pressed a hand, also presses answered without a write (a
        # tap while another plays): a player fidgeting meanwhile needs no sound on their turn.
        self._pressed: LRU[int, float] = LRU(size)
        # Hands owed again because a tap found them showing a turn already played, by (table,
        # seat) -> the ply they show: further taps on the same hand need no further write.
        self._reshown: LRU[tuple[int, int], int] = LRU(size)

    def pressed(self, user_id: int, at: float) -> None:
        self._pressed.put(user_id, at)

    def last_pressed(self, user_id: int) -> float | None:
        return self._pressed.peek(user_id)

    def reshow_once(self, table_id: int, seat: int, ply: int) -> bool:
        """Whether the seat's hand, showing ``ply``, is owed anew: only the first time."""
        key = (table_id, seat)
        if self._reshown.peek(key) == ply:
            return False
        self._reshown.put(key, ply)
        return True
