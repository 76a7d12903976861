"""A fake Telegram Bot API server for end-to-end tests; see README.md in this folder."""

from .limits import Bucket, RateLimitHit, TelegramLimits, Window
from .models import (
    ApiError,
    Button,
    Call,
    CallbackAnswer,
    ChatState,
    MessageVersion,
    Press,
    StoredMessage,
    Topic,
)
from .process import BotProcess
from .server import BOT_ID, BOT_USERNAME, TEST_TOKEN, FakeTelegram
from .users import ChatRef, SimGroup, SimUser

__all__ = [
    "BOT_ID",
    "BOT_USERNAME",
    "TEST_TOKEN",
    "ApiError",
    "BotProcess",
    "Bucket",
    "Button",
    "Call",
    "CallbackAnswer",
    "ChatRef",
    "ChatState",
    "FakeTelegram",
    "MessageVersion",
    "Press",
    "RateLimitHit",
    "SimGroup",
    "SimUser",
    "StoredMessage",
    "TelegramLimits",
    "Topic",
    "Window",
]
