"""KAOS agent memory."""

from __future__ import annotations

import secrets
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from .._operation import Call, Family, M, dump, operation
from ..models import kaos as k
from ..routes import KaosRoutes as R

EventIn = Union[k.KaosNewEvent, Mapping[str, Any]]


def _session(session_id: str) -> Dict[str, Any]:
    return dump(k.KaosSessionParams, {"sessionId": session_id})


class Kaos(Family[M]):
    """Sessions and typed events in an agent's namespace (the client's ``kaos_agent``). The client
    gives every event without an ``event_id``, and a session without an id, one of its own before
    the first attempt: the server stores an id once, so a call retried after a lost connection adds
    nothing twice."""

    @operation(R.create_session)
    def create_session(self, request: Union[k.KaosCreateSessionRequest, Mapping[str, Any], None] = None) -> Call[Union[k.KaosCreatedSession, k.KaosSessionAccepted]]:
        body = dump(k.KaosCreateSessionRequest, request)
        body["session_id"] = body.get("session_id") or f"session_{secrets.token_hex(6)}"
        return Call(body=body, idempotent=True)

    @operation(R.get_session)
    def get_session(self, session_id: str) -> Call[k.KaosSession]:
        return Call(params=_session(session_id))

    @operation(R.list_sessions)
    def list_sessions(self, user_id: Optional[str] = None) -> Call[k.KaosSessions]:
        return Call(query=dump(k.KaosListSessionsQuery, {} if user_id is None else {"user_id": user_id}))

    @operation(R.delete_session)
    def delete_session(self, session_id: str) -> Call[Union[k.KaosDeleted, k.KaosAccepted]]:
        return Call(params=_session(session_id))

    @operation(R.add_events)
    def add_events(self, session_id: str, events: Union[EventIn, Sequence[EventIn]]) -> Call[Union[k.KaosAddedEvents, k.KaosEventsAccepted]]:
        """Adds one event or a list (1 to 1000), in order."""
        many = events if isinstance(events, Sequence) else [events]
        body = [dump(k.KaosNewEvent, e) for e in many]
        for event in body:
            event.setdefault("event_id", f"evt_{secrets.token_hex(8)}")
        return Call(params=_session(session_id), body=body, idempotent=True)

    @operation(R.session_events)
    def session_events(self, session_id: str, event_types: Optional[Sequence[str]] = None) -> Call[k.KaosSessionEvents]:
        query = {} if event_types is None else {"event_types": ",".join(event_types)}
        return Call(params=_session(session_id), query=dump(k.KaosSessionEventsQuery, query))

    @operation(R.context)
    def context(self, session_id: str, max_events: Optional[int] = None) -> Call[k.KaosContext]:
        """The latest user and agent messages as "User: ...\\nAssistant: ..." text."""
        query = {} if max_events is None else {"max_events": max_events}
        return Call(params=_session(session_id), query=dump(k.KaosContextQuery, query))

    @operation(R.events)
    def events(self, *, limit: Optional[int] = None, session_id: Optional[str] = None) -> Call[k.KaosEvents]:
        """KAOS's own GET /memory/events: the latest events of the agent's sessions, or of one."""
        query = {key: v for key, v in {"limit": limit, "session_id": session_id}.items() if v is not None}
        return Call(query=dump(k.KaosEventsQuery, query))

    @operation(R.cleanup)
    def cleanup(self, max_age_hours: Optional[float] = None) -> Call[Union[k.KaosCleaned, k.KaosAccepted]]:
        """Deletes sessions not updated for ``max_age_hours``."""
        return Call(body=dump(k.KaosCleanupRequest, {} if max_age_hours is None else {"max_age_hours": max_age_hours}))

    @operation(R.stats)
    def stats(self) -> Call[k.KaosStats]:
        return Call()
