"""KAOS agent memory: sessions and typed events in an agent's namespace."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Union

from pydantic import Field

from ._base import Answer, Request

# A free string, as in KAOS: its agent writes these seven and more (task_delegation_received, delegation_error).
EventType = str


class KaosHeaders(Request):
    """Sent by the client from its ``kaos_agent`` setting, not per call; memstream_kaos.MemstreamMemory
    sends the limits it was built with (max_sessions, max_events_per_session)."""

    x_kaos_agent: Optional[str] = Field(default=None, alias="x-kaos-agent")
    x_kaos_max_sessions: Optional[str] = Field(default=None, alias="x-kaos-max-sessions")
    x_kaos_max_session_events: Optional[str] = Field(default=None, alias="x-kaos-max-session-events")


class KaosAgentHeaders(Request):
    """What the reads, deletes and cleanup document: the agent alone (the limits count only on writes)."""

    x_kaos_agent: Optional[str] = Field(default=None, alias="x-kaos-agent")


class KaosSessionParams(Request):
    session_id: str = Field(alias="sessionId")


class KaosEvent(Answer):
    event_id: str
    timestamp: str
    event_type: EventType
    content: Any
    metadata: Dict[str, Any]


# Each route's request part beside its answer.


class KaosCreateSessionRequest(Request):
    app_name: Optional[str] = None
    user_id: Optional[str] = None
    session_id: Optional[str] = None
    get_or_create: Optional[bool] = None


class KaosCreatedSession(Answer):
    """``created`` is False when ``get_or_create`` found the session already there."""

    session_id: str
    created: bool


class KaosAccepted(Answer):
    """202: Kafka has the write, the store had not applied it when the server's wait ended; it will be."""

    status: Literal["accepted"]


class KaosSessionAccepted(KaosAccepted):
    session_id: str


class KaosEventsAccepted(KaosAccepted):
    event_ids: List[str]


class KaosListSessionsQuery(Request):
    user_id: Optional[str] = None


class KaosSessions(Answer):
    agent: str
    sessions: List[str]
    total: int


class KaosSession(Answer):
    session_id: str
    user_id: str
    app_name: str
    events: List[KaosEvent]
    created_at: str
    updated_at: str


class KaosDeleted(Answer):
    deleted: bool


class KaosNewEvent(Request):
    event_type: EventType
    content: Any
    metadata: Optional[Dict[str, Any]] = None
    event_id: Optional[str] = None
    timestamp: Optional[str] = None


class KaosAddedEvents(Answer):
    added: int
    event_ids: List[str]


class KaosSessionEventsQuery(Request):
    event_types: Optional[Union[str, List[str]]] = None


class KaosSessionEvents(Answer):
    agent: str
    events: List[KaosEvent]
    total: int
    session_id: str


class KaosContextQuery(Request):
    max_events: Optional[int] = None


class KaosContext(Answer):
    session_id: str
    context: str = Field(description='"User: ..." and "Assistant: ..." lines, oldest first')


class KaosEventsQuery(Request):
    limit: Optional[int] = None
    session_id: Optional[str] = None


class KaosEvents(Answer):
    agent: str
    events: List[KaosEvent]
    total: int


class KaosCleanupRequest(Request):
    max_age_hours: Optional[float] = None


class KaosCleaned(Answer):
    cleaned: int


class KaosStats(Answer):
    total_sessions: int
    total_events: int
    avg_events_per_session: float
