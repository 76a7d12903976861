"""Forum topics: opened, closed and deleted by people (test controls) or by the bot
(``createForumTopic``, ``closeForumTopic``, ``reopenForumTopic``, ``deleteForumTopic``)."""

from __future__ import annotations

import time

from .common import bad, int_param
from .models import JSONDict, StoredMessage, Topic
from .users import SimGroup, SimUser


class TopicsMixin:
    """Forum topics for :class:`~fakebot.server.FakeTelegram`."""

    def create_topic(self, group: SimGroup, name: str, *, by: SimUser | None = None) -> Topic:
        """A member (by default the creator) opens a topic in a forum: a ``forum_topic_created``
        service message, whose id is the topic's ``message_thread_id``."""
        if not group.is_forum:
            raise AssertionError(f"{group.title!r} is not a forum")
        return self._open_topic(group, name, self._actor(group, by))

    def close_topic(self, group: SimGroup, topic: Topic, *, by: SimUser | None = None) -> None:
        """An admin closes a topic: only admins may write in it until it is reopened."""
        self._set_topic_closed(group, topic, self._actor(group, by), True)

    def reopen_topic(self, group: SimGroup, topic: Topic, *, by: SimUser | None = None) -> None:
        self._set_topic_closed(group, topic, self._actor(group, by), False)

    def delete_topic(self, group: SimGroup, topic: Topic) -> None:
        """An admin deletes a topic with all its messages (the bot gets no update)."""
        topic.deleted = True
        for message in group.messages.values():
            if message.is_topic_message and message.thread_id == topic.thread_id:
                message.deleted = True
        self._chat_changed(group)
        self._changed.fire()

    def _open_topic(
        self, group: SimGroup, name: str, sender: JSONDict, icon_color: int = 7322096
    ) -> Topic:
        message_id = group.take_message_id()
        fields = {"forum_topic_created": {"name": name, "icon_color": icon_color}}
        root = StoredMessage(
            chat=group,
            message_id=message_id,
            sender=sender,
            date=int(time.time()),
            raw_text=None,
            text=None,
            extra=fields,
            thread_id=message_id,
            is_topic_message=True,
        )
        topic = Topic(message_id, name, root, icon_color)
        group.topics[message_id] = topic
        self._deliver_service(root)
        return topic

    def _set_topic_closed(
        self, group: SimGroup, topic: Topic, sender: JSONDict, closed: bool
    ) -> None:
        if topic.deleted or group.topics.get(topic.thread_id) is not topic:
            raise AssertionError(f"no topic {topic.thread_id} in {group.title!r}")
        topic.closed = closed
        kind = "forum_topic_closed" if closed else "forum_topic_reopened"
        self._service_message(group, sender, {kind: {}}, topic=topic)

    def api_createForumTopic(self, params: JSONDict) -> JSONDict:
        chat = self._forum(params)
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise bad("TOPIC_TITLE_EMPTY")
        color = params.get("icon_color")
        icon_color = 7322096 if color in (None, "") else int_param(params, "icon_color")
        return self._open_topic(chat, name, self.bot_user, icon_color).to_api()

    def api_closeForumTopic(self, params: JSONDict) -> bool:
        return self._close_forum_topic(params, closed=True)

    def api_reopenForumTopic(self, params: JSONDict) -> bool:
        return self._close_forum_topic(params, closed=False)

    def api_deleteForumTopic(self, params: JSONDict) -> bool:
        chat, topic = self._managed_topic(params)
        self.delete_topic(chat, topic)
        return True

    def _close_forum_topic(self, params: JSONDict, *, closed: bool) -> bool:
        chat, topic = self._managed_topic(params)
        if topic.closed == closed:
            raise bad("TOPIC_NOT_MODIFIED")
        self._set_topic_closed(chat, topic, self.bot_user, closed)
        return True

    def _forum(self, params: JSONDict) -> SimGroup:
        """A forum the bot may manage topics in (it must be an admin)."""
        chat = self._writable_chat(params)
        if not isinstance(chat, SimGroup) or not chat.is_forum:
            raise bad("the chat is not a forum")
        if chat.bot_status != "administrator":
            raise bad("not enough rights to manage topics")
        return chat

    def _managed_topic(self, params: JSONDict) -> tuple[SimGroup, Topic]:
        chat = self._forum(params)
        topic = chat.topics.get(int_param(params, "message_thread_id"))
        if topic is None or topic.deleted:
            raise bad("message thread not found")
        return chat, topic
