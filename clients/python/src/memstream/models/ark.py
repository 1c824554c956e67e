"""ARK's Memory API: message batches, sessions and their streams."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, Union

from pydantic import Field

from ._base import Answer, OffsetPaging, Request


class ChatMessage(Answer):
    """An OpenAI chat message: a role and whatever else the message carries."""

    role: str


class ArkMessageBatch(Request):
    session_id: str
    query_id: Optional[str] = None
    messages: List[ChatMessage]


class ArkListQuery(OffsetPaging):
    session_id: Optional[str] = None
    query_id: Optional[str] = None


class ArkPurgeQuery(Request):
    session_id: Optional[str] = None


class ArkPurged(Answer):
    message: Literal["Memory purged"]
    sessions: List[str]
    deleted_messages: int


class ArkPurging(Answer):
    """202: purging outlasted the server's wait; Kafka has the deletions."""

    status: Literal["accepted"]
    request_ids: List[str]


class ArkStreamsPurged(Answer):
    status: Literal["success"]
    message: Literal["Stream data purged"]
    sessions: List[str]


class ArkStreamsPurging(Answer):
    """202: purging outlasted the server's wait; Kafka has the purges."""

    status: Literal["accepted"]
    request_ids: List[str]


class ArkChunkKinds(Answer):
    content: int
    tool_calls: int
    finish_reason: int
    unknown: int


class ArkStreamStats(Answer):
    total_chunks: int
    completed: bool
    has_done_marker: bool
    chunk_types: ArkChunkKinds


class ArkStreamStatistics(Answer):
    total_queries: int
    queries: Dict[str, ArkStreamStats]


class ArkSessionParams(Request):
    session_id: str


class ArkStreamQuery(Request):
    from_beginning: Optional[Literal["true", "false"]] = Field(default=None, alias="from-beginning")
    wait_for_session: Optional[Literal["true", "false"]] = Field(default=None, alias="wait-for-session")
    timeout: Optional[str] = None
    wait_for_query: Optional[str] = Field(default=None, alias="wait-for-query")


class ArkChunk(Answer):
    """A chat.completion.chunk as the agent relays it; the server keeps it as given."""


class ArkStored(Answer):
    status: Literal["ok"]
    session_id: str
    count: int
    request_id: str


class ArkStoring(Answer):
    """202: storing outlasted the server's wait; Kafka has the batch."""

    status: Literal["accepted"]
    session_id: str
    count: int
    request_id: str


class ArkRecord(Answer):
    id: int
    timestamp: str
    created_at: str
    session_id: str
    query_id: str
    message: Dict[str, Any]
    sequence: int


class ArkPage(Answer):
    messages: List[ArkRecord]
    total: int
    limit: int
    offset: int


class ArkSessions(Answer):
    sessions: List[str]


class ArkRelayed(Answer):
    status: Literal["ok"]
    session: str
    chunks: int


class ArkRelaying(Answer):
    """202: keeping the chunks outlasted the server's wait; Kafka has them."""

    status: Literal["accepted"]
    session: str
    chunks: int
    request_id: Optional[str] = None


class ArkCompleted(Answer):
    status: Literal["completed", "already_completed"]
    session: str
    query: str  # the same id, as ARK's reference service names it


class ArkCompleting(Answer):
    """202: completing outlasted the server's wait; Kafka has it."""

    status: Literal["accepted"]
    session: str
    query: str
    request_id: str


@dataclass(frozen=True)
class ArkChunkEvent:
    """A chat.completion.chunk of the session."""

    chunk: Dict[str, Any]
    type: Literal["chunk"] = "chunk"

    @property
    def content(self) -> Optional[str]:
        """The chunk's first choice's delta text, the usual thing to print."""
        choices = self.chunk.get("choices") or [{}]
        delta = choices[0].get("delta") or {}
        return delta.get("content")


@dataclass(frozen=True)
class ArkLive:
    """The replay (``from_beginning``) is over; what follows is live."""

    type: Literal["live"] = "live"


@dataclass(frozen=True)
class ArkEnd:
    """The session was completed; the stream ends right after."""

    type: Literal["end"] = "end"


ArkStreamEvent = Union[ArkChunkEvent, ArkLive, ArkEnd]
