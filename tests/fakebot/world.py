"""The simulated world: users, groups and channels, and what their people do in them
(send, join, leave, block the bot, ...), which becomes the bot's updates."""

from __future__ import annotations

import time
from collections.abc import Iterable

from .common import command_entities
from .models import ANONYMOUS_ADMIN, CHANNEL_BOT, ChatState, JSONDict, StoredMessage, Topic
from .users import BotStatus, ChatRef, SimGroup, SimUser


class WorldMixin:
    """World building and user actions for :class:`~fakebot.server.FakeTelegram`."""

    def add_user(
        self,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        *,
        last_name: str | None = None,
    ) -> SimUser:
        user = SimUser(
            self,
            next(self._user_ids),
            first_name,
            language_code=language_code,
            username=username,
            last_name=last_name,
        )
        self.users[user.id] = user
        self.chats[user.id] = user.private_chat
        return user

    def add_group(
        self,
        title: str,
        members: Iterable[SimUser],
        admins: Iterable[SimUser] = (),
        *,
        creator: SimUser | None = None,
        bot_status: BotStatus = "member",
        supergroup: bool = False,
        forum: bool = False,
        username: str | None = None,
    ) -> SimGroup:
        """A group that already contains the bot (``bot_status``) and the given users;
        ``admins`` are made members too; the creator defaults to the first admin/member.
        ``forum``: a supergroup with topics (see :meth:`create_topic`)."""
        supergroup = supergroup or forum
        admin_list = list(admins)
        member_list = list(members)
        member_list += [a for a in admin_list if not any(a is m for m in member_list)]
        if creator is None and (admin_list or member_list):
            creator = (admin_list or member_list)[0]
        number = next(self._group_ids)
        chat_id = -(1_001_000_000_000 + number) if supergroup else -(400_000_000 + number)
        group = SimGroup(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            members=member_list,
            admins=admin_list,
            creator=creator,
            bot_status=bot_status,
            is_forum=forum,
        )
        self.chats[group.id] = group
        return group

    def migrate_to_supergroup(self, group: SimGroup) -> SimGroup:
        """Upgrade a basic group: sends migrate_to_chat_id / migrate_from_chat_id messages;
        afterwards sending to the old id fails with 400 + ``migrate_to_chat_id``."""
        if group.type != "group" or group.migrated_to_chat_id is not None:
            raise AssertionError(f"chat {group.id} is not a basic group that can migrate")
        number = next(self._group_ids)
        supergroup = SimGroup(
            id=-(1_001_000_000_000 + number),
            type="supergroup",
            title=group.title,
            members=list(group.members),
            admins=list(group.admins),
            creator=group.creator,
            bot_status=group.bot_status,
            migrated_from_chat_id=group.id,
        )
        self.chats[supergroup.id] = supergroup
        actor = group.creator.to_api() if group.creator else self.bot_user
        self._service_message(group, actor, {"migrate_to_chat_id": supergroup.id})
        group.migrated_to_chat_id = supergroup.id
        self._service_message(supergroup, actor, {"migrate_from_chat_id": group.id})
        return supergroup

    def remove_bot_from(self, group: SimGroup, by: SimUser | None = None) -> None:
        """An admin kicks the bot: ``my_chat_member`` update with status "kicked"."""
        self._set_bot_status(group, "kicked", by)

    def add_bot_to(self, group: SimGroup, by: SimUser, *, as_admin: bool = False) -> None:
        """A user adds the bot: ``my_chat_member`` update (status "member") and a
        ``new_chat_members`` service message."""
        self._set_bot_status(group, "administrator" if as_admin else "member", by)
        self._service_message(group, by.to_api(), {"new_chat_members": [self.bot_user]})

    def user_joins(self, group: SimGroup, user: SimUser) -> StoredMessage:
        group.banned = [b for b in group.banned if b is not user]
        if not group.is_member(user):
            group.members.append(user)
        return self._service_message(group, user.to_api(), {"new_chat_members": [user.to_api()]})

    def ban(self, group: SimGroup, user: SimUser) -> StoredMessage:
        """An admin bans the user: they leave and getChatMember says "kicked"."""
        message = self.user_leaves(group, user)
        group.banned.append(user)
        return message

    def restrict(self, group: SimGroup, user: SimUser) -> None:
        """The user may not write (getChatMember: "restricted", ``is_member`` while in it)."""
        group.restricted.append(user)

    def user_leaves(self, group: SimGroup, user: SimUser) -> StoredMessage:
        group.members = [m for m in group.members if m is not user]
        group.admins = [a for a in group.admins if a is not user]
        return self._service_message(group, user.to_api(), {"left_chat_member": user.to_api()})

    def set_admin(self, group: SimGroup, user: SimUser, admin: bool = True) -> bool:
        """The group's creator promotes ``user`` to admin (or demotes them). Like Telegram, a
        ``chat_member`` update goes to the bot only when it is an administrator of the group
        and asked for ``chat_member`` in ``allowed_updates``; returns whether it was queued."""
        old = self._user_status(group, user)
        group.admins = [a for a in group.admins if a is not user]
        if admin:
            group.admins.append(user)
            if not group.is_member(user):
                group.members.append(user)
        new = self._user_status(group, user)
        if old == new or group.bot_status != "administrator":
            return False
        actor = group.creator or user
        return self._enqueue(
            "chat_member",
            {
                "chat": group.to_api(),
                "from": actor.to_api(),
                "date": int(time.time()),
                "old_chat_member": self._member(user.to_api(), old),
                "new_chat_member": self._member(user.to_api(), new),
            },
        )

    def add_channel(self, title: str) -> ChatState:
        """A channel (it can post in groups as itself: see :meth:`post_as_chat`)."""
        channel = ChatState(id=-(1_002_000_000_000 + next(self._group_ids)), type="channel")
        channel.title = title
        self.chats[channel.id] = channel
        return channel

    def user_sends(
        self,
        user: SimUser,
        ref: ChatRef,
        text: str,
        *,
        reply_to: int | None = None,
        topic: Topic | None = None,
    ) -> StoredMessage:
        chat = self.chat(ref)
        if chat.type == "private":
            if chat is not user.private_chat:
                raise AssertionError("a user can only write in their own private chat")
            if user.blocked:
                raise AssertionError(f"{user.first_name} blocked the bot; use start_bot()")
            if not user.started:
                if not text.startswith("/start"):
                    raise AssertionError(f"{user.first_name} has not started the bot yet")
                user.started = True
        else:
            assert isinstance(chat, SimGroup)
            if chat.migrated_to_chat_id is not None:
                raise AssertionError(f"group {chat.id} became {chat.migrated_to_chat_id}")
            if not chat.is_member(user):
                raise AssertionError(f"{user.first_name} is not a member of {chat.title!r}")
        replied = chat.messages.get(reply_to) if reply_to is not None else None
        if reply_to is not None and replied is None:
            raise AssertionError(f"no message {reply_to} in chat {chat.id}")
        thread_id, replied = self._user_thread(user, chat, topic, replied)
        message = StoredMessage(
            chat=chat,
            message_id=chat.take_message_id(),
            sender=user.to_api(),
            date=int(time.time()),
            raw_text=text,
            text=text,
            entities=command_entities(text),
            reply_to=replied,
            thread_id=thread_id,
            is_topic_message=topic is not None,
        )
        self._store(message)
        message.delivered = self._bot_sees(chat, message) and self._enqueue(
            "message", message.to_api()
        )
        return message

    def post_as_chat(
        self, group: SimGroup, text: str, *, channel: ChatState | None = None
    ) -> StoredMessage:
        """A message in ``group`` sent as ``channel`` (``from`` is @Channel_Bot), or by an
        anonymous admin (``channel`` None: ``from`` is @GroupAnonymousBot, ``sender_chat``
        the group), as Telegram shows such messages to bots."""
        sender = CHANNEL_BOT if channel is not None else ANONYMOUS_ADMIN
        message = StoredMessage(
            chat=group,
            message_id=group.take_message_id(),
            sender=dict(sender),
            date=int(time.time()),
            raw_text=text,
            text=text,
            entities=command_entities(text),
            extra={"sender_chat": (channel or group).to_api()},
        )
        self._store(message)
        message.delivered = self._bot_sees(group, message) and self._enqueue(
            "message", message.to_api()
        )
        return message

    def _user_thread(
        self,
        user: SimUser,
        chat: ChatState,
        topic: Topic | None,
        replied: StoredMessage | None,
    ) -> tuple[int | None, StoredMessage | None]:
        """Where a user's message lands: its thread id and what it replies to. In a topic
        every message replies to the topic's first one unless it replies to another; in other
        supergroups a reply carries the reply chain's id as ``message_thread_id``."""
        if topic is None:
            if chat.is_forum and replied is not None and replied.is_topic_message:
                raise AssertionError("a reply to a message in a topic is sent in that topic")
            if chat.type == "supergroup" and not chat.is_forum and replied is not None:
                return replied.thread_id or replied.message_id, replied
            return None, replied
        assert isinstance(chat, SimGroup)
        if not chat.is_forum or chat.topics.get(topic.thread_id) is not topic or topic.deleted:
            raise AssertionError(f"no topic {topic.thread_id} in chat {chat.id}")
        if topic.closed and not chat.is_admin(user):
            raise AssertionError(f"topic {topic.name!r} is closed: only admins write there")
        if replied is not None and replied.thread_id != topic.thread_id:
            raise AssertionError(f"message {replied.message_id} is not in topic {topic.name!r}")
        return topic.thread_id, replied or topic.root

    def user_starts_bot(self, user: SimUser, payload: str | None) -> StoredMessage:
        if user.blocked:
            user.blocked = False
            self._my_chat_member(user.private_chat, user.to_api(), "kicked", "member")
        user.started = True
        text = "/start" if payload is None else f"/start {payload}"
        return self.user_sends(user, user.private_chat, text)

    def user_blocks_bot(self, user: SimUser) -> None:
        if user.blocked:
            return
        user.blocked = True
        if user.started:
            self._my_chat_member(user.private_chat, user.to_api(), "member", "kicked")

    def _actor(self, group: SimGroup, by: SimUser | None) -> JSONDict:
        """Who did something in a group: ``by``, else its creator (else the bot)."""
        actor = by or group.creator
        return actor.to_api() if actor else self.bot_user
