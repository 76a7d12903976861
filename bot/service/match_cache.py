"""The loaded matches: loading one replays its record, so the newest are kept, keyed by the
state they were loaded from (a cache: any one can be loaded again)."""

from __future__ import annotations

from typing import Any

from kozel_rules.match import Match

from ..lru import LRU
from ..storage import TableRecord

MATCHES_KEPT = 256  # loaded matches kept in memory


class MatchCache:
    def __init__(self, size: int = MATCHES_KEPT) -> None:
        self._matches: LRU[int, tuple[dict[str, Any], Match]] = LRU(size)

    def of(self, table: TableRecord) -> Match:
        """The table's match (a private copy the caller may change)."""
        assert table.match_state is not None
        cached = self._matches.get(table.id)
        if cached is not None and cached[0] == table.match_state:
            return cached[1].copy()
        match = Match.from_json(table.match_state)
        self.keep(table, match)
        return match

    def keep(self, table: TableRecord, match: Match) -> None:
        """Remember the match just saved as ``table.match_state``."""
        assert table.match_state is not None
        if not table.is_active:
            self._matches.pop(table.id)  # finished: nobody asks for it again
            return
        self._matches.put(table.id, (table.match_state, match.copy()))

    def __len__(self) -> int:
        return len(self._matches)
