"""The running bot's settings: every setting of ``Config``, and what the bot learns at start
or keeps fixed."""

from __future__ import annotations

from dataclasses import dataclass, fields

from kozel_rules.ai import STAND_IN_LEVEL
from kozel_rules.variant import STREET, Variant

from ..config import Config


@dataclass(frozen=True, repr=False)  # Config's repr, which hides the secrets
class Settings(Config):
    """The configuration as the use cases see it: every setting of ``Config`` (its defaults
    are written there, once), and what the bot learns at start or keeps fixed."""

    bot_username: str = "kozel_bot"
    active_for: float = 30.0  # a player who pressed this recently needs no sound on their turn
    default_ai_level: str = STAND_IN_LEVEL  # stands in at timeouts, for the away, on /add
    default_variant: Variant = STREET

    @classmethod
    def of(cls, config: Config, *, bot_username: str) -> Settings:
        """The running bot's settings: ``config`` as read at start, and its username."""
        read = {f.name: getattr(config, f.name) for f in fields(Config)}
        return cls(**read, bot_username=bot_username)
