"""EverMemOS group-chat memory: request parts and answers."""

from __future__ import annotations

from typing import Any, Dict, Generic, List, Literal, Optional, TypeVar, Union

from pydantic import AfterValidator, Field
from typing_extensions import Annotated

from ._base import Answer, OffsetPaging, Request
from ._time_zones import TIME_ZONES

R = TypeVar("R")


def _known_zone(name: str) -> str:
    if name not in _ZONES:
        raise ValueError(f"{name!r} is not a time zone name the server knows (e.g. 'Asia/Shanghai', 'UTC')")
    return name


_ZONES = frozenset(TIME_ZONES)
# A tz database name, checked here as the server checks it; the document lists them as an enum.
TimeZone = Annotated[str, AfterValidator(_known_zone), Field(json_schema_extra={"enum": list(TIME_ZONES)})]
SyncMode = Literal["0", "1", "true", "false"]
# "agentic" is EverMemOS's model-guided search; memstream runs it as hybrid.
RetrieveMethod = Literal["keyword", "vector", "hybrid", "rrf", "agentic"]
# All but the first two are EverMemOS's kinds memstream forms none of: asked for, they answer nothing.
MemoryType = Literal[
    "episodic_memory",
    "message",
    "profile",
    "foresight",
    "event_log",
    "personal_semantic_memory",
    "personal_event_log",
    "semantic_memory",
    "base_memory",
    "preference",
    "core",
    "multiple",
    "entity",
    "relation",
    "behavior_history",
    "group_profile",
]


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
    """Whose memories: a group's, or (without a group) a user's across groups. ``"__all__"`` is
    anyone; ``user_id=""`` is a group's own narrative."""

    group_id: Optional[str] = None
    user_id: Optional[str] = None


class ListMemoriesQuery(Scope, OffsetPaging):
    """Newest first; ``memory_type`` picks messages or episodic memories."""

    memory_type: Optional[MemoryType] = None
    start_time: Optional[str] = None
    end_time: Optional[str] = None


class DeleteMemoriesFilter(Scope):
    """Every filter given must match; the message's own id narrows it to one, an ``event_id``
    (an episode, as a memory's ``memcell_event_id_list`` names it) to that episode's messages."""

    message_id: Optional[str] = None
    event_id: Optional[str] = None
    sync_mode: Optional[SyncMode] = None


class ConversationMeta(Request):
    """A group's metadata; with ``group_id`` None, the default config groups without their own fall back to."""

    version: Optional[str] = None
    scene: str
    scene_desc: Union[str, Dict[str, Any]]
    name: str
    description: str
    group_id: Optional[str] = None
    created_at: str
    default_timezone: TimeZone
    user_details: Optional[Dict[str, Any]] = None
    tags: Optional[List[str]] = None


class ConversationMetaPatch(Request):
    group_id: Optional[str] = None  # None: the default config
    name: Optional[str] = None
    description: Optional[str] = None
    scene_desc: Optional[Union[str, Dict[str, Any]]] = None
    tags: Optional[List[str]] = None
    user_details: Optional[Dict[str, Any]] = None
    default_timezone: Optional[TimeZone] = None


class GroupQuery(Request):
    group_id: str


class ConversationMetaQuery(Request):
    group_id: Optional[str] = None  # None: the default config


class SearchMemoriesRequest(Scope):
    query: str
    retrieve_method: Optional[RetrieveMethod] = None
    top_k: Optional[int] = None
    memory_types: Optional[List[MemoryType]] = None
    start_time: Optional[str] = None
    end_time: Optional[str] = None


class SearchMemoriesPost(SearchMemoriesRequest):
    """The POST search, memstream's own: ``explain`` gives each hit its ``score_parts``."""

    explain: Optional[bool] = None


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
    status_info: Literal["extracted", "extracting", "accumulated"]
    request_id: str
    duplicate: bool
    group_id: str
    message_id: str
    sequence: Optional[int]


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
    metadata: Dict[str, Any]


class PendingMessage(Answer):
    """A message no episode holds yet, as EverMemOS lists its pending messages."""

    memory_type: Literal["message"]
    message_id: str
    group_id: str
    group_name: Optional[str] = None
    user_id: str
    sender_name: str
    timestamp: str
    content: str
    refer_list: List[str]
    sequence: int
    id: str
    request_id: None
    sender: str
    message_create_time: str
    created_at: str
    updated_at: str


class SearchHit(Answer):
    id: str
    memory_type: Literal["message", "episodic_memory"]
    content: str
    score: float
    group_id: str
    user_id: Optional[str]
    timestamp: str
    message_ids: List[str]
    score_parts: Optional["ScoreParts"] = None


class KeywordStanding(Answer):
    rank: int
    score: float


class VectorStanding(Answer):
    rank: int
    similarity: float


class ScoreTerm(Answer):
    name: str
    weight: float
    value: float


class ScoreParts(Answer):
    """What a hit's score is made of: ``fused`` is the sum of weight × value over ``terms``, divided by
    ``divisor``; ``keyword`` and ``vector`` are the hit's place in each method's own list (None: not in it)."""

    keyword: Optional[KeywordStanding]
    vector: Optional[VectorStanding]
    terms: List[ScoreTerm]
    divisor: float
    fused: float


SearchHit.model_rebuild()


class SearchResult(Answer):
    memories: List[SearchHit]
    total_count: int
    retrieve_method: RetrieveMethod
    pending_messages: List[PendingMessage]


class GroupedSearchResult(Answer):
    """A search by GET, answered as EverMemOS answers it: ``memories`` is one ``{group_id: [hit, ...]}``
    per group (the group with the best hit first, each group's hits in time order), ``scores`` alike."""

    memories: List[Dict[str, List[SearchHit]]]
    scores: List[Dict[str, List[float]]]
    importance_scores: List[float]
    original_data: List[Any]
    total_count: int
    has_more: bool
    retrieve_method: RetrieveMethod
    query_metadata: Dict[str, Any]
    metadata: Dict[str, Any]
    pending_messages: List[PendingMessage]

    def hits(self) -> List[SearchHit]:
        """Every hit, best first, as a POST search lists them."""
        every = [hit for group in self.memories for hits in group.values() for hit in hits]
        return sorted(every, key=lambda hit: -hit.score)


class DeleteResult(Answer):
    filters: List[Literal["event_id", "user_id", "group_id", "message_id"]]
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
    close_reason: Literal["message_cap", "token_cap", "silence", "idle", "flush", "topic"]
    status: Literal["pending", "extracted", "failed"]


class FlushResult(Answer):
    group_id: str
    status_info: Literal["extracted", "extracting", "nothing_pending"]
    episodes: List[Episode]


class RequestStatus(Answer):
    request_id: str
    status: Literal["accepted", "stored", "extracted", "failed"]


class MemoryStats(Answer):
    """Counts of how far memory formation got for a group: stored, indexed, episodes, memories."""

    group_id: str
    embedding_model: str
    messages: int
    indexed_messages: int
    current_vectors: int
    search_items: int
    episodes: int
    episodes_extracted: int
    episodic_memories: int
    open_messages: int


WriteAnswer = Union[EverMemOsAnswer[WriteResult], Accepted]
MetaAnswer = Union[EverMemOsAnswer[Dict[str, Any]], Accepted]
DeleteAnswer = Union[EverMemOsAnswer[DeleteResult], Accepted]
FlushAnswer = Union[EverMemOsAnswer[FlushResult], Accepted]
