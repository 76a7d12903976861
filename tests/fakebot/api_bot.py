"""Bot API methods on the bot itself: ``getMe``, ``logOut``, ``close``, its commands
(``setMyCommands`` ...) and its name and descriptions."""

from __future__ import annotations

import re

from .common import bad, commands_key
from .models import JSONDict

_BOT_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")


class BotMixin:
    """The bot's own profile for :class:`~fakebot.server.FakeTelegram`."""

    def api_getMe(self, params: JSONDict) -> JSONDict:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def api_logOut(self, params: JSONDict) -> bool:
        return True

    def api_close(self, params: JSONDict) -> bool:
        return True

    def api_setMyCommands(self, params: JSONDict) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad("can't parse commands JSON object")
        for command in commands:
            name = command.get("command") if isinstance(command, dict) else None
            description = command.get("description") if isinstance(command, dict) else None
            if not isinstance(name, str) or not _BOT_COMMAND_RE.fullmatch(name):
                raise bad("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise bad("BOT_COMMAND_DESCRIPTION_INVALID")
        key = commands_key(params.get("scope"), str(params.get("language_code") or ""))
        self.commands[key] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def api_getMyCommands(self, params: JSONDict) -> list[JSONDict]:
        key = commands_key(params.get("scope"), str(params.get("language_code") or ""))
        return self.commands.get(key, [])

    def api_deleteMyCommands(self, params: JSONDict) -> bool:
        key = commands_key(params.get("scope"), str(params.get("language_code") or ""))
        self.commands.pop(key, None)
        return True

    def _set_bot_text(self, params: JSONDict, field: str, limit: int) -> bool:
        value = str(params.get(field) or "")
        if len(value) > limit:
            raise bad(f"{field.upper()}_INVALID")
        language = str(params.get("language_code") or "")
        self.bot_texts[(field, language)] = value
        return True

    def _get_bot_text(self, params: JSONDict, field: str) -> JSONDict:
        language = str(params.get("language_code") or "")
        return {field: self.bot_texts.get((field, language), "")}

    def api_setMyDescription(self, params: JSONDict) -> bool:
        return self._set_bot_text(params, "description", 512)

    def api_getMyDescription(self, params: JSONDict) -> JSONDict:
        return self._get_bot_text(params, "description")

    def api_setMyShortDescription(self, params: JSONDict) -> bool:
        return self._set_bot_text(params, "short_description", 120)

    def api_getMyShortDescription(self, params: JSONDict) -> JSONDict:
        return self._get_bot_text(params, "short_description")

    def api_setMyName(self, params: JSONDict) -> bool:
        return self._set_bot_text(params, "name", 64)

    def api_getMyName(self, params: JSONDict) -> JSONDict:
        return self._get_bot_text(params, "name")
