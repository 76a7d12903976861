"""Bot API methods on chats and members: ``getChat``, ``getChatMember``,
``getChatAdministrators``, ``getChatMemberCount``, ``leaveChat``, ``sendChatAction``, pins;
and the checks every chat method makes (chat found, bot still there, user not blocked)."""

from __future__ import annotations

from .common import BOT_ID, bad, forbidden, int_param
from .models import ChatState, JSONDict
from .users import SimGroup, SimUser

_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


class ChatsMixin:
    """Chats and members for :class:`~fakebot.server.FakeTelegram`."""

    def _lookup_chat(self, params: JSONDict) -> ChatState:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise bad("chat_id is empty")
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for chat in self.chats.values():
                if chat.type != "private" and chat.username == chat_id[1:]:
                    return chat
            raise bad("chat not found")
        try:
            return self.chats[int(chat_id)]
        except (KeyError, ValueError, TypeError):
            raise bad("chat not found") from None

    def _check_bot_in_chat(self, chat: ChatState, *, private_checks: bool = True) -> None:
        """Raise the error Telegram gives when the bot may not act in ``chat``."""
        if isinstance(chat, SimGroup):
            if chat.migrated_to_chat_id is not None:
                raise bad(
                    "group chat was upgraded to a supergroup chat",
                    migrate_to_chat_id=chat.migrated_to_chat_id,
                )
            kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
            if chat.bot_status == "kicked":
                raise forbidden(f"bot was kicked from the {kind}")
            if chat.bot_status == "left":
                raise forbidden(f"bot is not a member of the {kind}")
        elif private_checks:
            user = self.users[chat.id]
            if user.blocked:
                raise forbidden("bot was blocked by the user")
            if not user.started:
                raise forbidden("bot can't initiate conversation with a user")

    def _writable_chat(self, params: JSONDict) -> ChatState:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat)
        return chat

    def _member(self, user: JSONDict, status: str, *, is_member: bool = True) -> JSONDict:
        """A ChatMember object as PTB expects it for ``status``."""
        member: JSONDict = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_pin_messages=True,
            )
        elif status == "kicked":
            member["until_date"] = 0
        elif status == "restricted":
            member.update(
                is_member=is_member,
                until_date=0,
                can_send_messages=False,
                can_send_audios=False,
                can_send_documents=False,
                can_send_photos=False,
                can_send_videos=False,
                can_send_video_notes=False,
                can_send_voice_notes=False,
                can_send_polls=False,
                can_send_other_messages=False,
                can_add_web_page_previews=False,
                can_change_info=False,
                can_invite_users=False,
                can_pin_messages=False,
                can_manage_topics=False,
                can_edit_tag=False,
                can_react_to_messages=False,
            )
        return member

    def _user_status(self, chat: SimGroup, user: SimUser) -> str:
        if user is chat.creator:
            return "creator"
        if chat.is_admin(user):
            return "administrator"
        if any(b is user for b in chat.banned):
            return "kicked"
        if any(r is user for r in chat.restricted):
            return "restricted"
        return "member" if chat.is_member(user) else "left"

    def api_getChat(self, params: JSONDict) -> JSONDict:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        info: JSONDict = {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": True,
                "limited_gifts": True,
                "unique_gifts": True,
                "premium_subscription": True,
                "gifts_from_channels": True,
            },
        }
        if isinstance(chat, SimGroup):
            info["permissions"] = {"can_send_messages": True, "can_invite_users": True}
            if chat.migrated_from_chat_id is not None:
                info["migrated_from_chat_id"] = chat.migrated_from_chat_id
        if chat.pinned:
            info["pinned_message"] = chat.messages[chat.pinned[-1]].to_api()
        return info

    def api_getChatMember(self, params: JSONDict) -> JSONDict:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        user_id = int_param(params, "user_id")
        if user_id == BOT_ID:
            bot_status = chat.bot_status if isinstance(chat, SimGroup) else "member"
            return self._member(self.bot_user, bot_status)
        user = self.users.get(user_id)
        if user is None or (chat.type == "private" and chat.id != user_id):
            raise bad("user not found")
        if not isinstance(chat, SimGroup):
            return self._member(user.to_api(), "member")
        status = self._user_status(chat, user)
        return self._member(user.to_api(), status, is_member=chat.is_member(user))

    def api_getChatAdministrators(self, params: JSONDict) -> list[JSONDict]:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        if not isinstance(chat, SimGroup):
            raise bad("there are no administrators in the private chat")
        admins: list[JSONDict] = []
        if chat.creator is not None:
            admins.append(self._member(chat.creator.to_api(), "creator"))
        admins += [
            self._member(a.to_api(), "administrator") for a in chat.admins if a is not chat.creator
        ]
        if chat.bot_status == "administrator":
            admins.append(self._member(self.bot_user, "administrator"))
        return admins

    def api_getChatMemberCount(self, params: JSONDict) -> int:
        chat = self._lookup_chat(params)
        self._check_bot_in_chat(chat, private_checks=False)
        if not isinstance(chat, SimGroup):
            return 2
        return len(chat.members) + (1 if chat.bot_present else 0)

    def api_leaveChat(self, params: JSONDict) -> bool:
        chat = self._lookup_chat(params)
        if not isinstance(chat, SimGroup):
            raise bad("chat member status can't be changed in private chats")
        self._check_bot_in_chat(chat)
        self._my_chat_member(chat, self.bot_user, chat.bot_status, "left")
        chat.bot_status = "left"
        return True

    def api_sendChatAction(self, params: JSONDict) -> bool:
        self._writable_chat(params)
        if params.get("action") not in _CHAT_ACTIONS:
            raise bad("wrong parameter action in request")
        return True

    def api_pinChatMessage(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if isinstance(chat, SimGroup) and chat.bot_status != "administrator":
            raise bad("not enough rights to manage pinned messages in the chat")
        message = self._bot_message(chat, params, "pin")
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        chat.pinned.append(message.message_id)
        self._changed.fire()
        return True

    def api_unpinChatMessage(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if isinstance(chat, SimGroup) and chat.bot_status != "administrator":
            raise bad("not enough rights to manage pinned messages in the chat")
        if params.get("message_id") is not None:
            message_id = int_param(params, "message_id")
            if message_id in chat.pinned:
                chat.pinned.remove(message_id)
        elif chat.pinned:
            chat.pinned.pop()
        self._changed.fire()
        return True

    def api_unpinAllChatMessages(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if isinstance(chat, SimGroup) and chat.bot_status != "administrator":
            raise bad("not enough rights to manage pinned messages in the chat")
        chat.pinned.clear()
        self._changed.fire()
        return True
