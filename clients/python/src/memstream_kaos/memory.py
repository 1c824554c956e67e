"""MemstreamMemory: KAOS's LocalMemory interface, with the memory kept by a memstream server."""

import asyncio
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional
from urllib.parse import quote

import httpx

from .errors import MemstreamError
from .events import MemoryEvent, SessionMemory

# Answers worth another try: the server shed load or a dependency was restarting.
_RETRY_STATUSES = {429, 503}


class MemstreamMemory:
    """Drop-in for KAOS's LocalMemory: the same async methods, arguments and return types.

    Sessions live in the agent's namespace on the server (``agent``, sent as X-KAOS-Agent; the
    server's KAOS_AGENT_NAME when unset), so every replica of an agent shares them and they
    outlive the pod. Limits (sessions per agent, events per session) are the server's.
    Where LocalMemory answers False, None, [] or "" for a session that does not exist, so does
    this client; any other refusal raises MemstreamError.

    ``max_sessions`` and ``max_events_per_session`` are LocalMemory's own arguments (KAOS's server
    builds its memory with them): given, they travel with every call and the server keeps the
    agent's sessions and events within them, never beyond its own MEMORY_MAX_SESSIONS and
    MEMORY_MAX_SESSION_EVENTS, which apply when they are not given. They are an agent's: with a
    person's ``token`` and no ``api_key`` the server refuses them (403), so leave them out.
    """

    def __init__(
        self,
        base_url: str,
        agent: Optional[str] = None,
        api_key: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 10.0,
        retries: int = 3,
        transport: Optional[httpx.AsyncBaseTransport] = None,
        max_sessions: Optional[int] = None,
        max_events_per_session: Optional[int] = None,
    ):
        self.max_sessions = max_sessions
        self.max_events_per_session = max_events_per_session
        headers = {}
        if max_sessions is not None:
            headers["X-KAOS-Max-Sessions"] = str(int(max_sessions))
        if max_events_per_session is not None:
            headers["X-KAOS-Max-Session-Events"] = str(int(max_events_per_session))
        if agent:
            headers["X-KAOS-Agent"] = agent
        if api_key:
            headers["X-API-Key"] = api_key
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._retries = retries
        self._http = httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "MemstreamMemory":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    # Sessions

    async def create_session(self, app_name: str, user_id: str, session_id: Optional[str] = None) -> str:
        body: Dict[str, Any] = {"app_name": app_name, "user_id": user_id}
        if session_id:
            body["session_id"] = session_id
        return (await self._call("POST", "/memory/sessions", json=body))["session_id"]

    async def get_or_create_session(self, session_id: str, app_name: str = "agent", user_id: str = "user") -> str:
        body = {"app_name": app_name, "user_id": user_id, "session_id": session_id, "get_or_create": True}
        return (await self._call("POST", "/memory/sessions", json=body))["session_id"]

    async def get_session(self, session_id: str) -> Optional[SessionMemory]:
        if session_id == "":
            return None  # no session has the empty id (LocalMemory's dict has none either)
        data = await self._call("GET", f"/memory/sessions/{_seg(session_id)}", missing=None)
        return None if data is None else SessionMemory.from_dict(data)

    async def list_sessions(self, user_id: Optional[str] = None) -> List[str]:
        params = {"user_id": user_id} if user_id else None
        return list((await self._call("GET", "/memory/sessions", params=params))["sessions"])

    async def delete_session(self, session_id: str) -> bool:
        if session_id == "":
            return False
        # (202: still being applied when the server stopped waiting; the deletion will happen)
        return bool((await self._call("DELETE", f"/memory/sessions/{_seg(session_id)}")).get("deleted", True))

    # Events

    def create_event(self, event_type: str, content: Any, metadata: Optional[Dict[str, Any]] = None) -> MemoryEvent:
        """Made here, as LocalMemory makes it; its id and time travel with it, so a resent event is stored once.

        Inside a KAOS agent with OpenTelemetry on, the current trace_id and span_id join the
        metadata, as LocalMemory adds them."""
        event_metadata = dict(metadata) if metadata else {}
        event_metadata.update(_kaos_trace_context())
        return MemoryEvent(
            event_id=f"event_{uuid.uuid4().hex[:8]}",
            timestamp=datetime.now(timezone.utc),
            event_type=event_type,
            content=content,
            metadata=event_metadata,
        )

    async def add_event(self, session_id: str, event: MemoryEvent) -> bool:
        if session_id == "":
            return False
        added = await self._call("POST", f"/memory/sessions/{_seg(session_id)}/events", json=event.to_dict(), missing=False)
        return added is not False

    async def get_session_events(self, session_id: str, event_types: Optional[List[str]] = None) -> List[MemoryEvent]:
        if session_id == "":
            return []
        params = {"event_types": ",".join(event_types)} if event_types else None
        data = await self._call("GET", f"/memory/sessions/{_seg(session_id)}/events", params=params, missing=None)
        return [] if data is None else [MemoryEvent.from_dict(e) for e in data["events"]]

    async def build_conversation_context(self, session_id: str, max_events: int = 20) -> str:
        if session_id == "":
            return ""
        data = await self._call("GET", f"/memory/sessions/{_seg(session_id)}/context", params={"max_events": max_events}, missing=None)
        return "" if data is None else data["context"]

    # Upkeep

    async def cleanup_old_sessions(self, max_age_hours: int = 24) -> int:
        return int((await self._call("POST", "/memory/cleanup", json={"max_age_hours": max_age_hours})).get("cleaned", 0))

    async def get_memory_stats(self) -> Dict[str, int]:
        return dict(await self._call("GET", "/memory/stats"))

    async def _call(self, method: str, path: str, *, json: Any = None, params: Any = None, missing: Any = ...) -> Any:
        """One request, retried on 429/503 as Retry-After asks; a 404 gives `missing` when one is given."""
        for attempt in range(self._retries + 1):
            response = await self._http.request(method, path, json=json, params=params)
            if response.status_code in _RETRY_STATUSES and attempt < self._retries:
                await asyncio.sleep(_retry_after(response, attempt))
                continue
            if response.status_code == 404 and missing is not ...:
                return missing
            if response.status_code >= 400:
                raise _error_of(response)
            return response.json()
        raise AssertionError("unreachable")


def _seg(value: str) -> str:
    # "." and ".." are unreserved, so quote keeps them, and an HTTP client then resolves
    # /sessions/./events to /sessions/events: spelled %2E they stay the session's own segment.
    if value in (".", ".."):
        return "%2E" * len(value)
    return quote(value, safe="")


def _kaos_trace_context() -> Dict[str, str]:
    """KAOS's own trace context when this runs inside a KAOS agent (its telemetry module); else none."""
    try:
        from telemetry.manager import get_current_trace_context, is_otel_enabled  # type: ignore[import-not-found]
    except ImportError:
        return {}
    if not is_otel_enabled():
        return {}
    return dict(get_current_trace_context() or {})


def _retry_after(response: httpx.Response, attempt: int) -> float:
    try:
        return min(30.0, float(response.headers.get("retry-after", "")))
    except ValueError:
        return min(30.0, 0.2 * 2**attempt)


def _error_of(response: httpx.Response) -> MemstreamError:
    try:
        body = response.json()
        return MemstreamError(response.status_code, body.get("code"), str(body.get("detail", body)))
    except ValueError:
        return MemstreamError(response.status_code, None, response.text[:500])
