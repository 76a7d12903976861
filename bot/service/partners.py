"""What /stats shows of a person's achievements, partners and waits (the store's ``awards``)."""

from __future__ import annotations

from ..i18n import Translator
from ..render import achievements as render
from ..storage import PairLine
from .core import Core

LEAST_TOGETHER = 3
"""Matches two partners must have played together to be a partnership."""


def pair_of(line: PairLine, first: int | None = None) -> render.Pair:
    """``first``: the person to name first (their partner second)."""
    names = (line.low_name, line.high_name)
    if first is not None and line.high == first:
        names = (line.high_name, line.low_name)
    return render.Pair(names, line.matches, line.wins, line.defeat_points)


async def private_lines(core: Core, t: Translator, user_id: int) -> list[str]:
    """/stats in private: how many achievements the person holds, every chat together."""
    count = await core.storage.awards.count(user_id)
    return render.private_lines(t, count)


async def stats_lines(core: Core, t: Translator, chat_id: int, user_id: int) -> list[str]:
    """/stats: the person's achievements here and their best partner."""
    earned = await core.storage.awards.earned(chat_id, user_id)
    lines = await core.storage.awards.pairs(chat_id, user_id=user_id, least=LEAST_TOGETHER)
    pairs = [pair_of(line, user_id) for line in lines]
    best = render.best_first(pairs)
    timeouts, stood_in = await core.storage.awards.waits(chat_id, user_id)
    return render.stats_lines(
        t,
        [e.achievement for e in earned],
        best[0] if best else None,
        timeouts=timeouts,
        stood_in=stood_in,
    )
