"""A whole match in the terminal against computer players (``python -m kozel_rules play``).

Everything shown comes from the human seat's view and the events in the form that seat may
see (face-down cards of others as counts only). Moves are listed with numbers; the human
types a number (``q`` quits). When the human may declare a special lead out of turn, the
list also offers ``0`` to let play go on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from ..action import Action, Verb
from ..card import format_cards
from ..event import (
    CardGiven,
    CardsPlayed,
    CardsReturned,
    DealEnded,
    DealStarted,
    Event,
    ExchangeMade,
    MatchEnded,
    QueenCaught,
    TrickTaken,
    event_for_seat,
)
from ..match import Match
from ..view import SeatView, TrickView
from . import choose, interrupt
from .search import Budget

_VERB_TEXT = {
    Verb.LEAD: "leads",
    Verb.BEAT: "beats with",
    Verb.PLAY: "plays",
    Verb.MOLODKA: "declares a molodka:",
    Verb.MOSCOW: "declares a Moscow:",
}


class Quit(Exception):
    """The human quit (``q`` or the end of the input)."""


class TextGame:
    """One match: the human at ``seat``, computer players of ``level`` elsewhere."""

    def __init__(
        self,
        match: Match,
        seat: int,
        level: str,
        *,
        rng: random.Random,
        budget: Budget | None = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.m = match
        self.seat = seat
        self.level = level
        self.rng = rng
        self.budget = budget
        self.read = read
        self.write = write

    # ------------------------------------------------------------------ names

    def name(self, s: int) -> str:
        if s == self.seat:
            return "You"
        if (
            self.m.sides == 2
            and self.m.players == 4
            and self.m.side_of(s) == self.m.side_of(self.seat)
        ):
            return f"Seat {s} (partner)"
        return f"Seat {s}"

    def side_name(self, side: int) -> str:
        seats = self.m.seats_of(side)
        if self.seat in seats:
            return "you" if len(seats) == 1 else "your team"
        if len(seats) == 1:
            return f"seat {seats[0]}"
        return "seats " + "+".join(str(s) for s in seats)

    # ------------------------------------------------------------------ showing

    def show_events(self, events: list[Event]) -> None:
        for e in events:
            line = self.event_text(event_for_seat(e, self.seat))
            if line:
                self.write(line)

    def event_text(self, e: Event) -> str:
        if isinstance(e, DealStarted):
            return self._deal_started_text(e)
        if isinstance(e, CardsPlayed):
            return self._played_text(e)
        if isinstance(e, CardGiven):
            card = f" {e.card}" if e.card is not None else " a trump"
            gives = "give" if e.leader == self.seat else "gives"
            return f"{self.name(e.leader)} {gives}{card} to {self.name(e.partner).lower()}"
        if isinstance(e, ExchangeMade):
            card = f" {e.returned}" if e.returned is not None else " a plain card"
            returns = "return" if e.partner == self.seat else "returns"
            return f"{self.name(e.partner)} {returns}{card} to {self.name(e.leader).lower()}"
        if isinstance(e, CardsReturned):
            return "The cards on the table go back to their owners."
        if isinstance(e, TrickTaken):
            return f"{self.name(e.seat)} took the trick ({e.cards} cards)."
        if isinstance(e, QueenCaught):
            return (
                f"The Q♣ of {self.name(e.queen_seat).lower()} is caught by the 7♣ of "
                f"{self.name(e.seven_seat).lower()}!"
            )
        if isinstance(e, DealEnded):
            return self._deal_ended_text(e)
        if isinstance(e, MatchEnded):
            return self._match_ended_text(e)
        return ""

    def _deal_started_text(self, e: DealStarted) -> str:
        trump = ""
        if e.trump is not None:
            trump = f", trump {e.trump}"
            if e.trump_card is not None:
                trump += f" (card {e.trump_card})"
        return f"\n=== Deal {e.number}: dealer seat {e.dealer}{trump} ==="

    def _played_text(self, e: CardsPlayed) -> str:
        who = self.name(e.seat)
        if e.verb is Verb.DISCARD:
            if e.cards and e.seat == self.seat:
                return f"{who} discard face down: {format_cards(e.cards)}"
            return f"{who} discards {e.count} card{'s' if e.count > 1 else ''} face down"
        verb = _VERB_TEXT.get(e.verb, str(e.verb))
        if who == "You":
            verb = {"leads": "lead", "plays": "play", "beats with": "beat with"}.get(
                verb, verb.replace("declares", "declare")
            )
        return f"{who} {verb} {format_cards(e.cards)}"

    def _deal_ended_text(self, e: DealEnded) -> str:
        r = e.result
        parts = []
        for side in range(len(r.card_points)):
            if side in self.m.out and r.defeat_points[side] == 0 and r.card_points[side] == 0:
                continue
            parts.append(
                f"{self.side_name(side)}: {r.card_points[side]} card points, "
                f"+{r.defeat_points[side]} defeat points"
            )
        extra = " (eggs!)" if r.eggs else ""
        extra += " (queen caught)" if r.queen_caught else ""
        extra += f" (x{r.multiplier})" if r.multiplier > 1 and not r.eggs else ""
        if r.eggs_double_next:
            extra += f" (the next deal counts x{r.next_multiplier})"
        totals = ", ".join(f"{self.side_name(x)} {p}" for x, p in enumerate(self.m.defeat_points))
        return f"Deal {r.number} over{extra}: " + "; ".join(parts) + f"\nDefeat points: {totals}"

    def _match_ended_text(self, e: MatchEnded) -> str:
        mr = e.result
        won = ", ".join(self.side_name(x) for x in mr.winners)
        eggs = " with eggs" if mr.goat_with_eggs else ""
        goats = " and ".join(self.side_name(x) for x in mr.goats)
        return f"\nMatch over after {mr.deals} deals: {won} won; the goat{eggs}: {goats}."

    def trick_text(self, t: TrickView | None) -> str:
        if t is None or not t.plays:
            return "(empty)"
        parts = []
        for p in t.plays:
            if p.cards:
                parts.append(f"{self.name(p.seat)}: {format_cards(p.cards)}")
            else:
                parts.append(f"{self.name(p.seat)}: {p.count} face down")
        return "; ".join(parts)

    def table_text(self, v: SeatView) -> str:
        lines = []
        trump = "trumps: every Q, J and ♣ (7♣ highest)" if v.trump is None else f"trump {v.trump}"
        if v.trump_card is not None:
            trump += f" (card {v.trump_card}{', drawn' if v.trump_card_drawn else ''})"
        lines.append(f"Deal {v.deal_number}, {trump}, stock {v.stock}")
        sizes = ", ".join(
            f"{self.name(s).lower()} {v.hand_sizes[s]}" for s in range(v.players) if v.in_game[s]
        )
        lines.append(f"Cards in hand: {sizes}")
        tricks = ", ".join(f"{self.side_name(x)} {n}" for x, n in enumerate(v.tricks_by_side))
        defeat = ", ".join(f"{self.side_name(x)} {p}" for x, p in enumerate(v.defeat_points))
        lines.append(f"Tricks: {tricks}. Defeat points: {defeat}")
        if v.last_trick is not None:
            lines.append(f"Last trick: {self.trick_text(v.last_trick)}")
        lines.append(f"On the table: {self.trick_text(v.trick)}")
        lines.append(f"Your hand: {format_cards(v.hand)}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ asking

    def ask(self, actions: list[Action], may_pass: bool) -> Action | None:
        v = self.m.view(self.seat)
        self.write("")
        self.write(self.table_text(v))
        self.write("Your moves:" if not may_pass else "You may declare out of turn:")
        if may_pass:
            self.write("   0) let play go on")
        for i, a in enumerate(actions, 1):
            self.write(f"  {i:2}) {a.verb} {format_cards(a.cards)}")
        while True:
            try:
                text = self.read("Your choice: ").strip().lower()
            except EOFError:
                raise Quit from None
            if text in ("q", "quit", "exit"):
                raise Quit
            if text.isdigit():
                k = int(text)
                if may_pass and k == 0:
                    return None
                if 1 <= k <= len(actions):
                    return actions[k - 1]
            self.write(f"Type a number from {0 if may_pass else 1} to {len(actions)} (q quits).")

    # ------------------------------------------------------------------ the match

    def steps(self) -> Iterator[None]:
        m = self.m
        while not m.is_over:
            mover = m.to_move
            assert mover is not None
            mine = m.legal_actions(self.seat)
            if mover == self.seat:
                action = self.ask(mine, may_pass=False)
                assert action is not None
                self.show_events(m.apply(action))
                yield
                continue
            if mine:  # the human may declare a special out of turn
                action = self.ask(mine, may_pass=True)
                if action is not None:
                    self.show_events(m.apply(action))
                    yield
                    continue
            special = None
            others = {a.seat for a in m.legal_actions() if a.seat not in (mover, self.seat)}
            for s in sorted(others, key=lambda s: (s - mover) % m.players):
                special = interrupt(m, s, level=self.level, rng=self.rng)
                if special is not None:
                    break
            if special is None:
                special = choose(m, mover, level=self.level, rng=self.rng, budget=self.budget)
            self.show_events(m.apply(special))
            yield

    def run(self) -> int:
        m = self.m
        v = m.view(self.seat)
        self.write(
            f"Kozel, {m.variant.name}, {m.players} players; you are seat {self.seat}; "
            f"computer players: {self.level}."
        )
        if not m.options.is_default:
            self.write(f"House rules: {m.options.format()}; out at {m.goat_at} defeat points.")
        trump = f", trump {v.trump}" if v.trump is not None else ""
        if v.trump_card is not None:
            trump += f" (card {v.trump_card})"
        self.write(f"\n=== Deal 1: dealer seat {v.dealer}{trump} ===")
        try:
            for _ in self.steps():
                pass
        except Quit:
            self.write("\nBye.")
            return 1
        return 0


__all__ = ["Quit", "TextGame"]
