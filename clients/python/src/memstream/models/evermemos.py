"""EverMemOS group-chat memory: request parts and answers."""

from __future__ import annotations

from typing import Any, Dict, Generic, List, Literal, Optional, TypeVar, Union

from pydantic import Field

from ._base import Answer, OffsetPaging, Request

R = TypeVar("R")
SyncMode = Literal["0", "1", "true", "false"]
RetrieveMethod = Literal["keyword", "vector", "hybrid", "rrf"]
MemoryType = Literal["episodic_memory", "message"]


class SyncModeQuery(Request):
    sync_mode: Optional[SyncMode] = None


class ReferredMessage(Answer):
    message_id: str


class GroupChatMessage(Request):
    """One message. ``message_id`` is the writer's own and is stored once per group, so a write
    retried after a lost connection stores nothing twice."""

    group_id: Optional[str] = None
    group_name: Optional[str] = None
    message_id: str
    create_time: str
    sender: str
    sender_name: Optional[str] = None
    content: str
    refer_list: Optional[List[Union[str, ReferredMessage]]] = None


class Scope(Request):
    """Whose memories: a group's, or (without a group) a user's across groups."""

    group_id: Optional[str] = None
    user_id: Optional[str] = None


class ListMemoriesQuery(Scope, OffsetPaging):
    """Newest first; ``memory_type`` picks messages or episodic memories."""

    memory_type: Optional[MemoryType] = None


class DeleteMemoriesFilter(Scope):
    """Every filter given must match; the message's own id narrows it to one."""

    message_id: Optional[str] = None


class ConversationMeta(Request):
    version: str
    scene: str
    scene_desc: Union[str, Dict[str, Any]]
    name: str
    description: str
    group_id: str
    created_at: str
    default_timezone: str
    user_details: Dict[str, Any]
    tags: Optional[List[str]] = None


class ConversationMetaPatch(Request):
    group_id: str
    name: Optional[str] = None
    description: Optional[str] = None
    scene_desc: Optional[Union[str, Dict[str, Any]]] = None
    tags: Optional[List[str]] = None
    user_details: Optional[Dict[str, Any]] = None
    default_timezone: Optional[str] = None


class GroupQuery(Request):
    group_id: str


class SearchMemoriesRequest(Scope):
    query: str
    retrieve_method: Optional[RetrieveMethod] = None
    top_k: Optional[int] = None
    memory_types: Optional[List[MemoryType]] = None
    start_time: Optional[str] = None
    end_time: Optional[str] = None


class FlushMemoriesRequest(Request):
    group_id: str
    sync_mode: Optional[bool] = None


class RequestStatusQuery(Request):
    request_id: str


class EverMemOsAnswer(Answer, Generic[R]):
    """The envelope of every successful EverMemOS answer."""

    status: Literal["ok"]
    message: str
    result: R


class Accepted(Answer):
    """202: Kafka has the write, the store not yet; poll ``request_status(request_id)``."""

    status: Literal["ok"]
    message: str
    request_id: str


class WriteResult(Answer):
    saved_memories: List[Any]
    count: int
    status_info: str
    request_id: str
    duplicate: bool
    group_id: str
    message_id: str
    sequence: int


class Memory(Answer):
    """A message (``memory_type`` "message") or an episodic memory; each keeps its own fields."""

    memory_type: MemoryType
    group_id: str
    content: str
    timestamp: str
    message_id: Optional[str] = None
    id: Optional[str] = None
    title: Optional[str] = None


class MemoryPage(Answer):
    memories: List[Memory]
    total_count: int
    has_more: bool


class SearchHit(Answer):
    id: str
    memory_type: MemoryType
    content: str
    score: float
    group_id: str
    user_id: Optional[str] = None
    timestamp: str
    message_ids: List[str] = Field(default_factory=list)


class SearchResult(Answer):
    memories: List[SearchHit]
    total_count: int
    retrieve_method: str
    pending_messages: List[Memory] = Field(default_factory=list)


class DeleteResult(Answer):
    deleted_messages: int
    deleted_memories: int
    episodes_reextracting: int
    episodes_deleted: int
    count: int


class Episode(Answer):
    episode_id: int
    start_sequence: int
    end_sequence: int
    message_count: int
    close_reason: str
    status: str


class FlushResult(Answer):
    group_id: str
    status_info: Literal["extracted", "extracting", "nothing_pending"]
    episodes: List[Episode] = Field(default_factory=list)


class RequestStatus(Answer):
    request_id: str
    status: Literal["accepted", "stored", "extracted", "failed"]


class MemoryStats(Answer):
    """Counts of how far memory formation got for a group (``indexed_messages``, ...), kept as extra fields."""

    group_id: str
    embedding_model: str


WriteAnswer = Union[EverMemOsAnswer[WriteResult], Accepted]
MetaAnswer = Union[EverMemOsAnswer[Dict[str, Any]], Accepted]
