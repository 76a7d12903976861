"""Bot API methods on messages: ``sendMessage``, ``editMessageText``,
``editMessageReplyMarkup``, ``deleteMessage``, ``deleteMessages``."""

from __future__ import annotations

import time

from .api_callbacks import validate_markup
from .common import bad, int_param
from .formatting import FormattedText, ParseError, format_text
from .models import ChatState, JSONDict, StoredMessage
from .users import SimGroup

MAX_TEXT_LENGTH = 4096

_NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)


class MessagesMixin:
    """Messages for :class:`~fakebot.server.FakeTelegram`."""

    def _bot_message(self, chat: ChatState, params: JSONDict, action: str) -> StoredMessage:
        if params.get("inline_message_id"):
            raise bad("MESSAGE_ID_INVALID")  # inline messages are not simulated
        message_id = int_param(params, "message_id")
        message = chat.messages.get(message_id)
        if message is None or message.deleted:
            raise bad(f"message to {action} not found")
        return message

    def _format(self, params: JSONDict) -> FormattedText:
        text = params.get("text")
        if not isinstance(text, str) or not text:
            raise bad("message text is empty")
        parse_mode = params.get("parse_mode")
        entities = params.get("entities")
        try:
            formatted = format_text(
                text,
                parse_mode if isinstance(parse_mode, str) else None,
                entities if isinstance(entities, list) else None,
            )
        except ParseError as exc:
            raise bad(f"can't parse entities: {exc}") from None
        if not formatted.text:
            raise bad("message text is empty")
        if len(formatted.text) > MAX_TEXT_LENGTH:
            raise bad("message is too long")
        return formatted

    def api_sendMessage(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        formatted = self._format(params)
        markup = validate_markup(
            params.get("reply_markup"), inline_only=False, private=chat.type == "private"
        )
        reply_to = self._reply_target(chat, params)
        thread_id, in_topic, reply_to = self._bot_thread(chat, params, reply_to)
        extra: JSONDict = {}
        if isinstance(params.get("link_preview_options"), dict):
            extra["link_preview_options"] = params["link_preview_options"]
        options: JSONDict = {
            key: params[key]
            for key in (
                "parse_mode",
                "disable_notification",
                "protect_content",
                "message_thread_id",
            )
            if key in params
        }
        message = StoredMessage(
            chat=chat,
            message_id=chat.take_message_id(),
            sender=self.bot_user,
            date=int(time.time()),
            raw_text=params["text"],
            text=formatted.text,
            entities=formatted.entities,
            reply_markup=markup,
            reply_to=reply_to,
            extra=extra,
            options=options,
            thread_id=thread_id,
            is_topic_message=in_topic,
        )
        self._store(message)
        return message.to_api()

    def _bot_thread(
        self, chat: ChatState, params: JSONDict, reply_to: StoredMessage | None
    ) -> tuple[int | None, bool, StoredMessage | None]:
        """Where a message the bot sends lands: (thread id, in a topic, what it replies to).
        In a forum, without ``message_thread_id`` it goes to General (or the replied message's
        topic). Outside forums a thread id is refused (stricter than Telegram, which accepts a
        supergroup's reply thread: the bot never needs one)."""
        given = params.get("message_thread_id") not in (None, "")
        if isinstance(chat, SimGroup) and chat.is_forum:
            if given:
                thread: int | None = int_param(params, "message_thread_id")
            else:
                in_one = reply_to is not None and reply_to.is_topic_message
                thread = reply_to.thread_id if reply_to is not None and in_one else None
            if thread is None:
                return None, False, reply_to
            topic = chat.topics.get(thread)
            if topic is None or topic.deleted:
                raise bad("message thread not found")
            if topic.closed and chat.bot_status != "administrator":
                raise bad("TOPIC_CLOSED")
            return thread, True, reply_to or topic.root
        if given:
            raise bad("message thread not found")
        if chat.type == "supergroup" and reply_to is not None:
            return reply_to.thread_id or reply_to.message_id, False, reply_to
        return None, False, reply_to

    def _reply_target(self, chat: ChatState, params: JSONDict) -> StoredMessage | None:
        reply = params.get("reply_parameters")
        if not isinstance(reply, dict):
            if "reply_to_message_id" not in params:
                return None
            reply = {
                "message_id": params["reply_to_message_id"],
                "allow_sending_without_reply": params.get("allow_sending_without_reply"),
            }
        target_chat = chat
        if reply.get("chat_id") not in (None, chat.id):
            target_chat = self._lookup_chat({"chat_id": reply["chat_id"]})
        target = target_chat.messages.get(int(reply.get("message_id") or 0))
        if target is None or target.deleted:
            if reply.get("allow_sending_without_reply"):
                return None
            raise bad("message to be replied not found")
        return target

    def api_editMessageText(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        message = self._bot_message(chat, params, "edit")
        if not message.from_bot:
            raise bad("message can't be edited")
        if message.text is None:
            raise bad("there is no text in the message to edit")
        formatted = self._format(params)
        # Telegram drops the inline keyboard when an edit does not repeat it.
        markup = validate_markup(
            params.get("reply_markup"), inline_only=True, private=chat.type == "private"
        )
        if (
            formatted.text == message.text
            and formatted.entities == message.entities
            and markup == message.reply_markup
        ):
            raise bad(_NOT_MODIFIED)
        message.raw_text = params["text"]
        message.text = formatted.text
        message.entities = formatted.entities
        message.reply_markup = markup
        if "parse_mode" in params:
            message.options["parse_mode"] = params["parse_mode"]
        message.edit_date = int(time.time())
        self._touch(message)
        return message.to_api()

    def api_editMessageReplyMarkup(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        message = self._bot_message(chat, params, "edit")
        if not message.from_bot:
            raise bad("message can't be edited")
        markup = validate_markup(
            params.get("reply_markup"), inline_only=True, private=chat.type == "private"
        )
        if markup == message.reply_markup:
            raise bad(_NOT_MODIFIED)
        message.reply_markup = markup
        message.edit_date = int(time.time())
        self._touch(message)
        return message.to_api()

    def api_deleteMessage(self, params: JSONDict) -> bool:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        message = self._bot_message(chat, params, "delete")
        self._delete(chat, message)
        return True

    def api_deleteMessages(self, params: JSONDict) -> bool:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        ids = params.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise bad("message_ids is empty")
        for message_id in ids:
            message = chat.messages.get(int(message_id))
            if message is not None and not message.deleted:
                self._delete(chat, message)
        return True

    def _delete(self, chat: ChatState, message: StoredMessage) -> None:
        if (
            isinstance(chat, SimGroup)
            and not message.from_bot
            and chat.bot_status != "administrator"
        ):
            raise bad("message can't be deleted")
        message.deleted = True
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        self._chat_changed(chat)
        self._changed.fire()
