"""chirino's memory-service, both layouts. Python names are snake_case; the wire is camelCase."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Generic, List, Literal, Optional, TypeVar, Union

from pydantic import Field

from ._base import CamelAnswer, CamelRequest, CursorPaging

T = TypeVar("T")
AccessLevel = Literal["owner", "manager", "writer", "reader"]
# What a share or a membership change may give: ownership passes only by a transfer.
GrantableLevel = Literal["manager", "writer", "reader"]
# history, memory or summary, in any letter case (the server answers in lower case)
Channel = str
MessageChannel = Literal["history", "memory", "summary"]


class ConversationIdParams(CamelRequest):
    conversation_id: str


class MemberParams(CamelRequest):
    conversation_id: str
    user_id: str


class TransferIdParams(CamelRequest):
    transfer_id: str


class MessageIdParams(CamelRequest):
    conversation_id: str
    message_id: str


class CreateConversationRequest(CamelRequest):
    title: Optional[str] = None
    metadata: Optional[Dict[str, Any]] = None


class ListConversationsQuery(CursorPaging):
    mode: Optional[Literal["all", "roots", "latest-fork"]] = None
    query: Optional[str] = None


class UserMessagesQuery(CursorPaging):
    """The design document's messages: history only."""


class ListMessagesQuery(CursorPaging):
    channel: Optional[Channel] = None
    epoch: Optional[Union[Literal["latest", "all"], int]] = None


class CreateUserMessageRequest(CamelRequest):
    """The design document's plain-text message."""

    content: str
    metadata: Optional[Dict[str, Any]] = None


class CreateMessageRequest(CamelRequest):
    """The code layout's message: content blocks on a channel."""

    user_id: Optional[str] = None
    channel: Optional[Channel] = None
    epoch: Optional[int] = None
    content: List[Any]


class CodeForkRequest(CamelRequest):
    title: Optional[str] = None


class ForkRequest(CodeForkRequest):
    new_message: Optional[CreateUserMessageRequest] = Field(default=None, description="The design document's fork carries its first message")


class ShareRequest(CamelRequest):
    user_id: str
    access_level: GrantableLevel


class UpdateMembershipRequest(CamelRequest):
    access_level: GrantableLevel


class TransferOwnershipRequest(CamelRequest):
    new_owner_user_id: str


class CreateOwnershipTransferRequest(CamelRequest):
    """The later transfer API's offer: the conversation is named in the body; only a member is offered it."""

    conversation_id: str
    new_owner_user_id: str


class ListOwnershipTransfersQuery(CamelRequest):
    """The caller's pending offers: made (``sender``), received (``recipient``) or both, after ``after_cursor``."""

    role: Optional[Literal["sender", "recipient", "all"]] = None
    after_cursor: Optional[str] = None
    limit: Optional[int] = None


class SearchMessagesRequest(CamelRequest):
    query: str
    top_k: Optional[int] = None
    conversation_ids: Optional[List[str]] = None
    before: Optional[str] = None


class SyncMessage(CamelRequest):
    user_id: Optional[str] = None
    channel: Channel  # memory, in any case
    epoch: Optional[int] = None
    content: List[Any]


class SyncMessagesRequest(CamelRequest):
    """The memory an agent wants for its current epoch, every message on the memory channel."""

    messages: List[SyncMessage]


class CreateSummaryRequest(CamelRequest):
    title: str
    summary: str
    until_message_id: str
    summarized_at: str


class AgentMessage(CamelRequest):
    role: Literal["user", "assistant", "system", "tool", "agent"]
    visibility: Optional[Literal["user", "agent", "system"]] = None
    content: Union[str, List[Any]]
    metadata: Optional[Dict[str, Any]] = None
    parent_message_id: Optional[str] = None
    channel: Optional[Literal["history", "memory"]] = None
    user_id: Optional[str] = None


class CreateAgentMessagesRequest(CamelRequest):
    messages: List[AgentMessage]


class ContextQuery(CamelRequest):
    after_message_id: Optional[str] = None
    limit: Optional[int] = None


class RecordResponseRequest(CamelRequest):
    tokens: List[str]
    done: Optional[bool] = None


class Conversation(CamelAnswer):
    """A conversation as the memory-service answers it: a field with no value is left out (None here)."""

    id: str
    title: Optional[str] = None
    owner_user_id: Optional[str] = None
    created_at: str
    updated_at: str
    last_message_preview: Optional[str] = None
    access_level: Optional[AccessLevel] = None
    forked_at_message_id: Optional[str] = None
    forked_at_conversation_id: Optional[str] = None


class Fork(CamelAnswer):
    """A conversation of the fork tree, and where it branched off (None for the root)."""

    conversation_id: str
    title: Optional[str] = None
    forked_at_message_id: Optional[str] = None
    forked_at_conversation_id: Optional[str] = None
    created_at: str


class Membership(CamelAnswer):
    conversation_id: str
    user_id: str
    access_level: AccessLevel
    created_at: str


class Transfer(CamelAnswer):
    id: str
    conversation_id: str
    from_user_id: str
    to_user_id: str
    status: Literal["pending", "accepted", "declined", "superseded", "withdrawn", "cancelled"]
    created_at: str


class OwnershipOffer(CamelAnswer):
    """A pending offer of the later transfer API; ``conversation_title`` only for a caller who may read the conversation."""

    id: str
    conversation_id: str
    conversation_title: Optional[str] = None
    from_user_id: str
    to_user_id: str
    created_at: str


class OwnershipOfferPage(CamelAnswer):
    """One page of offers; ``after_cursor`` is None on the last."""

    data: List[OwnershipOffer]
    after_cursor: Optional[str]


class Message(CamelAnswer):
    """The code layout's message (``/v1/conversations``): content blocks on a channel; no ``user_id``
    or ``epoch`` when it has none."""

    id: str
    conversation_id: str
    user_id: Optional[str] = None
    channel: MessageChannel
    epoch: Optional[int] = None
    content: List[Any]
    created_at: str


class DocumentMessage(CamelAnswer):
    """The document layout's message (``/v1/user``, ``/v1/agent``): the text, the blocks it came in,
    role, visibility and its place in the conversation; every field sent, None where it has no value."""

    id: str
    conversation_id: str
    user_id: Optional[str]
    role: Literal["user", "assistant", "system", "tool", "agent"]
    visibility: Literal["user", "agent", "system"]
    channel: MessageChannel
    content: str
    content_blocks: List[Any]
    metadata: Dict[str, Any]
    parent_message_id: Optional[str]
    sequence: int
    created_at: str


class Page(CamelAnswer, Generic[T]):
    """One page; ``next_cursor`` is None on the last."""

    data: List[T]
    next_cursor: Optional[str]


class Items(CamelAnswer, Generic[T]):
    """A whole list, in one answer."""

    data: List[T]


class DocumentFork(CamelAnswer):
    """A conversation of the fork tree as the document layout lists it: ``conversation_id`` is the tree's."""

    conversation_id: str
    fork_id: str
    forked_from_message_id: Optional[str]
    forked_from_conversation_id: Optional[str]
    title: Optional[str]
    created_at: str
    is_current_fork: bool


class Accepted(CamelAnswer):
    """202: Kafka has the write, the store had not applied it when the server's wait ended."""

    status: Literal["accepted"]
    id: str
    request_id: str


class SyncResult(CamelAnswer):
    epoch: int
    no_op: bool
    epoch_incremented: bool
    messages: List[Message]


class SearchHit(CamelAnswer):
    message: Message
    score: float


class AgentContext(CamelAnswer):
    conversation_id: str
    messages: List[DocumentMessage]
    next_after_message_id: Optional[str]


class Cancelled(CamelAnswer):
    cancelled: bool


class ResponseState(CamelAnswer):
    state: Literal["none", "in_progress", "done", "cancelled"]


@dataclass(frozen=True)
class ResponseToken:
    text: str
    type: Literal["token"] = "token"


@dataclass(frozen=True)
class ResponseEnd:
    """The response is over: ``done``, or ``cancelled`` by a reader."""

    type: Literal["done", "cancelled"]


ResponseEvent = Union[ResponseToken, ResponseEnd]
