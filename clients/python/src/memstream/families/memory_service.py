"""chirino's memory-service, in both its layouts and its agent routes."""

from __future__ import annotations

import json
from typing import Any, Dict, Generic, List, Mapping, Optional, Union

from .._operation import Call, Family, M, Stream, Transport, dump, operation, stream_operation
from .._sse import Decoded, SseFrame
from ..models import memory_service as ms
from ..routes import CODE, USER, AgentRoutes

In = Union[Mapping[str, Any], None]


def _conversation(conversation_id: str) -> Dict[str, Any]:
    return dump(ms.ConversationIdParams, {"conversation_id": conversation_id})


def _member(conversation_id: str, user_id: str) -> Dict[str, Any]:
    return dump(ms.MemberParams, {"conversation_id": conversation_id, "user_id": user_id})


class Conversations(Family[M]):
    """What both layouts serve alike: conversations, forks, memberships and the ownership transfer.
    Conversation ids are the server's, so creating writes are not repeated after a lost connection
    (429 and a 503 refused at the door still are: nothing was written)."""

    routes: Any

    @operation("create")
    def create(self, request: Union[ms.CreateConversationRequest, In] = None) -> Call[Union[ms.Conversation, ms.Accepted]]:
        return Call(body=dump(ms.CreateConversationRequest, request))

    @operation("list")
    def list(self, query: Union[ms.ListConversationsQuery, In] = None) -> Call[ms.Page[ms.Conversation]]:
        return Call(query=dump(ms.ListConversationsQuery, query))

    @operation("get")
    def get(self, conversation_id: str) -> Call[ms.Conversation]:
        return Call(params=_conversation(conversation_id))

    @operation("delete")
    def delete(self, conversation_id: str) -> Call[Optional[ms.Accepted]]:
        """Deletes the conversation and every fork of its tree: None once applied, or the accepted
        write (202) when it was not applied within the server's wait."""
        return Call(params=_conversation(conversation_id))

    @operation("forks")
    def forks(self, conversation_id: str) -> Call[ms.Items[ms.Fork]]:
        """The forks of the conversation's tree."""
        return Call(params=_conversation(conversation_id))

    @operation("memberships")
    def memberships(self, conversation_id: str) -> Call[ms.Items[ms.Membership]]:
        return Call(params=_conversation(conversation_id))

    @operation("share")
    def share(self, conversation_id: str, user_id: str, access_level: ms.AccessLevel) -> Call[Union[ms.Membership, ms.Accepted]]:
        # Granting the same level twice leaves one membership: a repeat is harmless.
        body = dump(ms.ShareRequest, {"user_id": user_id, "access_level": access_level})
        return Call(params=_conversation(conversation_id), body=body, idempotent=True)

    @operation("update_membership")
    def update_membership(self, conversation_id: str, user_id: str, access_level: ms.AccessLevel) -> Call[Union[ms.Membership, ms.Accepted]]:
        body = dump(ms.UpdateMembershipRequest, {"access_level": access_level})
        return Call(params=_member(conversation_id, user_id), body=body, idempotent=True)

    @operation("revoke_membership")
    def revoke_membership(self, conversation_id: str, user_id: str) -> Call[Optional[ms.Accepted]]:
        return Call(params=_member(conversation_id, user_id))

    @operation("transfer_ownership")
    def transfer_ownership(self, conversation_id: str, new_owner_user_id: str) -> Call[Union[ms.Transfer, ms.Accepted]]:
        body = dump(ms.TransferOwnershipRequest, {"new_owner_user_id": new_owner_user_id})
        return Call(params=_conversation(conversation_id), body=body)

    @operation("pending_transfer")
    def pending_transfer(self, conversation_id: str) -> Call[ms.Transfer]:
        return Call(params=_conversation(conversation_id))

    @operation("accept_transfer")
    def accept_transfer(self, conversation_id: str) -> Call[Union[ms.Transfer, ms.Accepted]]:
        return Call(params=_conversation(conversation_id))

    @operation("decline_transfer")
    def decline_transfer(self, conversation_id: str) -> Call[Union[ms.Transfer, ms.Accepted]]:
        return Call(params=_conversation(conversation_id))


class UserConversations(Conversations[M]):
    """The design document's layout for people (``/v1/user/...``): plain-text messages, forks that carry their first message."""

    routes = USER

    @operation("list_messages")
    def list_messages(self, conversation_id: str, *, after: Optional[str] = None, limit: Optional[int] = None) -> Call[ms.Page[ms.DocumentMessage]]:
        query = dump(ms.UserMessagesQuery, {k: v for k, v in {"after": after, "limit": limit}.items() if v is not None})
        return Call(params=_conversation(conversation_id), query=query)

    @operation("append_message")
    def append_message(self, conversation_id: str, message: Union[ms.CreateUserMessageRequest, Mapping[str, Any]]) -> Call[Union[ms.DocumentMessage, ms.Accepted]]:
        return Call(params=_conversation(conversation_id), body=dump(ms.CreateUserMessageRequest, message))

    @operation("fork")
    def fork(self, conversation_id: str, message_id: str, request: Union[ms.ForkRequest, In] = None) -> Call[Union[ms.Conversation, ms.Accepted]]:
        params = dump(ms.MessageIdParams, {"conversation_id": conversation_id, "message_id": message_id})
        return Call(params=params, body=dump(ms.ForkRequest, request))

    @operation("forks")
    def forks(self, conversation_id: str) -> Call[ms.Items[ms.DocumentFork]]:  # type: ignore[override]
        """The fork tree: ``conversation_id`` is the tree's, ``fork_id`` each conversation's own."""
        return Call(params=_conversation(conversation_id))

    @operation("search")
    def search(self, request: Union[ms.SearchMessagesRequest, Mapping[str, Any]]) -> Call[ms.Items[ms.SearchHit]]:
        """Hybrid search over the messages of every conversation the caller may read."""
        return Call(body=dump(ms.SearchMessagesRequest, request), idempotent=True)


def decode_response_frame(frame: SseFrame) -> Decoded[ms.ResponseEvent]:
    if frame.event == "token":
        return ms.ResponseToken(json.loads(frame.data)["text"]), False
    if frame.event in ("done", "cancelled"):
        return ms.ResponseEnd(frame.event), True  # type: ignore[arg-type]
    return None, False


class CodeConversations(Conversations[M]):
    """The January 2026 code's layout (``/v1/conversations/...``): content blocks on channels, summaries, the response resumer."""

    routes = CODE

    @operation("list_messages")
    def list_messages(self, conversation_id: str, query: Union[ms.ListMessagesQuery, In] = None) -> Call[ms.Page[ms.Message]]:
        return Call(params=_conversation(conversation_id), query=dump(ms.ListMessagesQuery, query))

    @operation("append_message")
    def append_message(self, conversation_id: str, message: Union[ms.CreateMessageRequest, Mapping[str, Any]]) -> Call[Union[ms.Message, ms.Accepted]]:
        """Appends content blocks; a conversation that does not exist yet is created, owned by the caller."""
        return Call(params=_conversation(conversation_id), body=dump(ms.CreateMessageRequest, message))

    @operation("fork")
    def fork(self, conversation_id: str, message_id: str, *, title: Optional[str] = None) -> Call[Union[ms.Conversation, ms.Accepted]]:
        params = dump(ms.MessageIdParams, {"conversation_id": conversation_id, "message_id": message_id})
        return Call(params=params, body=dump(ms.CodeForkRequest, {} if title is None else {"title": title}))

    @operation("end_transfer")
    def end_transfer(self, transfer_id: str) -> Call[Optional[ms.Accepted]]:
        """Ends a pending ownership offer: its owner (or an agent) withdraws it, its recipient declines it."""
        return Call(params=dump(ms.TransferIdParams, {"transfer_id": transfer_id}))

    @operation("offer_ownership")
    def offer_ownership(self, conversation_id: str, new_owner_user_id: str) -> Call[Union[ms.OwnershipOffer, ms.Accepted]]:
        """Offers ownership to a member (the later API: 400 for anyone else, 409 while an offer is pending)."""
        body = dump(ms.CreateOwnershipTransferRequest, {"conversation_id": conversation_id, "new_owner_user_id": new_owner_user_id})
        return Call(body=body)

    @operation("ownership_offers")
    def ownership_offers(self, query: Union[ms.ListOwnershipTransfersQuery, In] = None) -> Call[ms.OwnershipOfferPage]:
        """The caller's pending offers, oldest first; ``after_cursor`` of one page asks for the next."""
        return Call(query=dump(ms.ListOwnershipTransfersQuery, query))

    @operation("ownership_offer")
    def ownership_offer(self, transfer_id: str) -> Call[ms.OwnershipOffer]:
        return Call(params=dump(ms.TransferIdParams, {"transfer_id": transfer_id}))

    @operation("accept_ownership_offer")
    def accept_ownership_offer(self, transfer_id: str) -> Call[Optional[ms.Accepted]]:
        """Accepts the offer made to the caller: they become the owner, the former owner a manager."""
        return Call(params=dump(ms.TransferIdParams, {"transfer_id": transfer_id}))

    @operation("share_at_forks")
    def share_at_forks(self, conversation_id: str, user_id: str, access_level: ms.AccessLevel) -> Call[Union[ms.Membership, ms.Accepted]]:
        """Sharing where the January 2026 version put it (POST /forks); the same as ``share``."""
        body = dump(ms.ShareRequest, {"user_id": user_id, "access_level": access_level})
        return Call(params=_conversation(conversation_id), body=body, idempotent=True)

    @operation("create_summary")
    def create_summary(self, conversation_id: str, summary: Union[ms.CreateSummaryRequest, Mapping[str, Any]]) -> Call[Union[ms.Message, ms.Accepted]]:
        return Call(params=_conversation(conversation_id), body=dump(ms.CreateSummaryRequest, summary))

    @operation("sync_memory")
    def sync_memory(self, conversation_id: str, request: Union[ms.SyncMessagesRequest, Mapping[str, Any]]) -> Call[Union[ms.SyncResult, ms.Accepted]]:
        """An agent's whole memory for its current epoch: unchanged is a no-op, an extension is appended
        within the epoch, anything else starts the next one. Sending it again changes nothing."""
        return Call(params=_conversation(conversation_id), body=dump(ms.SyncMessagesRequest, request), idempotent=True)

    @operation("record_response")
    def record_response(self, conversation_id: str, tokens: List[str], *, done: bool = False) -> Call[ms.ResponseState]:
        """Records tokens of the response in progress; ``done`` ends it for every reader."""
        body = dump(ms.RecordResponseRequest, {"tokens": tokens, "done": done})
        return Call(params=_conversation(conversation_id), body=body)

    @operation("cancel_response")
    def cancel_response(self, conversation_id: str) -> Call[ms.Cancelled]:
        return Call(params=_conversation(conversation_id), idempotent=True)

    @stream_operation("follow_response")
    def follow_response(self, conversation_id: str) -> Stream[ms.ResponseEvent]:
        """The response from its start, then live, until done or cancelled."""
        return Stream(params=_conversation(conversation_id), decode=decode_response_frame)


class AgentConversations(Family[M]):
    """What agents (API keys) call under ``/v1/agent/...``."""

    @operation(AgentRoutes.append_messages)
    def append_messages(self, conversation_id: str, request: Union[ms.CreateAgentMessagesRequest, Mapping[str, Any]]) -> Call[Union[ms.Items[ms.DocumentMessage], ms.Accepted]]:
        return Call(params=_conversation(conversation_id), body=dump(ms.CreateAgentMessagesRequest, request))

    @operation(AgentRoutes.create_summary)
    def create_summary(self, conversation_id: str, summary: Union[ms.CreateSummaryRequest, Mapping[str, Any]]) -> Call[Union[ms.Message, ms.Accepted]]:
        return Call(params=_conversation(conversation_id), body=dump(ms.CreateSummaryRequest, summary))

    @operation(AgentRoutes.context)
    def context(self, conversation_id: str, *, after_message_id: Optional[str] = None, limit: Optional[int] = None) -> Call[ms.AgentContext]:
        """The conversation for a prompt: the newest summary, then the messages after it."""
        query = {k: v for k, v in {"after_message_id": after_message_id, "limit": limit}.items() if v is not None}
        return Call(params=_conversation(conversation_id), query=dump(ms.ContextQuery, query))


class MemoryService(Generic[M]):
    """The memory-service family: ``user`` (/v1/user), ``conversations`` (/v1/conversations), ``agent`` (/v1/agent)."""

    def __init__(self, transport: Transport) -> None:
        self.user: UserConversations[M] = UserConversations(transport)
        self.conversations: CodeConversations[M] = CodeConversations(transport)
        self.agent: AgentConversations[M] = AgentConversations(transport)
