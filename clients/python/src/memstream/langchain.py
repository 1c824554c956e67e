"""A LangChain chat message history kept in a memstream conversation (``pip install memstream[langchain]``).

It uses memory-service's code layout (``/v1/conversations/{id}/messages``): its messages hold
content blocks of any shape, so a LangChain message is kept whole (tool calls and all) and comes
back as it went in, while other memory-service readers still see a text block with the role. The
conversation is created by the first message, owned by the caller; ``clear`` deletes it.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict

from .client import Memstream
from .errors import MemstreamError
from .models.memory_service import Message

_PAGE = 200


class MemstreamChatMessageHistory(BaseChatMessageHistory):
    """The messages of one conversation, through a blocking :class:`~memstream.Memstream` client.
    LangChain's async calls (``ainvoke``) run these in its thread pool, as its base class does
    for every history without async methods of its own."""

    def __init__(self, conversation_id: str, client: Memstream) -> None:
        self.conversation_id = conversation_id
        self._conversations = client.memory_service.conversations

    @property
    def messages(self) -> List[BaseMessage]:  # type: ignore[override]
        kept: List[Message] = []
        after: Optional[str] = None
        while True:
            query: Dict[str, Any] = {"channel": "history", "limit": _PAGE, **({"after": after} if after else {})}
            try:
                page = self._conversations.list_messages(self.conversation_id, query)
            except MemstreamError as err:
                if err.status == 404:
                    return []  # never written to, or cleared: no messages yet
                raise
            kept += page.data
            after = page.next_cursor
            if not after:
                return messages_from_dict([b["langchain"] for m in kept for b in (m.content or []) if isinstance(b, dict) and "langchain" in b])

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        # One append per message, in order: the conversation keeps them as they arrive.
        for message in messages:
            block = {"type": "text", "text": message.text, "role": message.type, "langchain": message_to_dict(message)}
            self._conversations.append_message(self.conversation_id, {"content": [block]})

    def clear(self) -> None:
        try:
            self._conversations.delete(self.conversation_id)
        except MemstreamError as err:
            if err.status != 404:
                raise
