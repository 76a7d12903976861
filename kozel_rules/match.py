"""The match: deals, tricks, specials, scoring, match end. One checked ``apply``.

PUBLIC API CONTRACT (the bot and the computer players are written against it):

    m = Match.new("street", players=4, seed=7, dealer=None, decks=None)
    m.variant            -> Variant      (m.variant.name == "street")
    m.players            -> int
    m.seed               -> int
    m.legal_actions()    -> list[Action]  every action any seat may take now
                                          (the seat to move, and seats that may declare a special)
    m.legal_actions(seat)-> list[Action]  only that seat's
    m.to_move            -> int | None    the seat whose turn it is (None when over)
    m.apply(action)      -> list[Event]   raises IllegalActionError (state unchanged)
    m.apply_text("1 lead K♠ 9♠")          same, parsing the action
    m.view(seat)         -> SeatView      seat=None: the public view
    m.is_over            -> bool
    m.result             -> MatchResult | None
    m.deal_results       -> list[DealResult]
    m.defeat_points      -> tuple[int, ...] per side
    m.side_of(seat)      -> int
    m.seats_of(side)     -> tuple[int, ...]
    m.sides              -> int           number of sides (2 or 3)
    m.ply                -> int           number of actions applied so far
    m.to_json()          -> dict          JSON-safe; Match.from_json(d) continues identically
    m.copy()             -> Match

    (implementation to follow)
"""
