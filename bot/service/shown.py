"""What the newest messages show, as far as this process knows: an edit that would change
nothing is skipped (Telegram would refuse it as "not modified")."""

from __future__ import annotations

import time

from ..lru import LRU

SHOWN_KEPT = 4096  # messages remembered


class Shown:
    def __init__(self, size: int = SHOWN_KEPT) -> None:
        self._looks: LRU[tuple[int, int], int] = LRU(size)  # message -> text hash
        # Messages whose last edit failed on the way (a timeout): Telegram may still carry it
        # out late, over a later edit of the same message (message -> when it failed).
        self._unsure: LRU[tuple[int, int], float] = LRU(size)

    def shows(self, chat_id: int, message_id: int, look: int) -> bool:
        """Whether the message shows ``look`` already."""
        return self._looks.peek((chat_id, message_id)) == look

    def remember(self, chat_id: int, message_id: int, look: int) -> None:
        self._looks.put((chat_id, message_id), look)

    def forget_chat(self, chat_id: int) -> None:
        """Another worker may have sent to the chat: what its messages show is not known."""
        for key in self._looks.oldest_first():
            if key[0] == chat_id:
                self._looks.pop(key)

    def edit_failed(self, chat_id: int, message_id: int) -> None:
        """The message's edit failed on the way: it may yet land, late."""
        self._unsure.put((chat_id, message_id), time.time())

    def settle(self, chat_id: int, message_id: int) -> bool:
        """Whether an edit of the message failed on the way since it was last settled (the
        late edit may land over the one just made); it is settled now."""
        return self._unsure.pop((chat_id, message_id)) is not None
