"""LocalMemory's documented behaviour, re-implemented in memory for the tests: the yardstick the client is held to.

Written from KAOS's documentation and observed behaviour (spec 003): sessions in a dict in
creation order, a bounded deque of events per session, the oldest tenth of sessions (by last
update, at least one) evicted before a session is created at the limit.
"""

import uuid
from collections import deque
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Optional

from memstream_kaos import MemoryEvent, SessionMemory


class ReferenceMemory:
    def __init__(self, max_sessions: int = 1000, max_events_per_session: int = 500):
        self.sessions: Dict[str, SessionMemory] = {}
        self.max_sessions = max_sessions
        self.max_events = max_events_per_session

    async def create_session(self, app_name: str, user_id: str, session_id: Optional[str] = None) -> str:
        session_id = session_id or f"session_{uuid.uuid4().hex[:12]}"
        if len(self.sessions) >= self.max_sessions:
            oldest = sorted(self.sessions.values(), key=lambda s: s.updated_at)
            for s in oldest[: max(1, self.max_sessions // 10)]:
                del self.sessions[s.session_id]
        now = datetime.now(timezone.utc)
        # assigning to an existing key keeps its place in the dict: KAOS's listing order
        self.sessions[session_id] = SessionMemory(session_id, user_id, app_name, deque(maxlen=self.max_events), now, now)
        return session_id

    async def get_session(self, session_id: str) -> Optional[SessionMemory]:
        return self.sessions.get(session_id)

    async def get_or_create_session(self, session_id: str, app_name: str = "agent", user_id: str = "user") -> str:
        if session_id not in self.sessions:
            await self.create_session(app_name, user_id, session_id)
        return session_id

    def create_event(self, event_type: str, content: Any, metadata: Optional[Dict[str, Any]] = None) -> MemoryEvent:
        return MemoryEvent(f"event_{uuid.uuid4().hex[:8]}", datetime.now(timezone.utc), event_type, content, dict(metadata or {}))

    async def add_event(self, session_id: str, event: MemoryEvent) -> bool:
        session = self.sessions.get(session_id)
        if session is None:
            return False
        session.events.append(event)
        session.updated_at = datetime.now(timezone.utc)
        return True

    async def get_session_events(self, session_id: str, event_types: Optional[List[str]] = None) -> List[MemoryEvent]:
        session = self.sessions.get(session_id)
        if session is None:
            return []
        return [e for e in session.events if not event_types or e.event_type in event_types]

    async def build_conversation_context(self, session_id: str, max_events: int = 20) -> str:
        messages = await self.get_session_events(session_id, ["user_message", "agent_response"])
        lines = [f"{'User' if e.event_type == 'user_message' else 'Assistant'}: {e.content}" for e in messages[-max_events:]]
        return "\n".join(lines)

    async def list_sessions(self, user_id: Optional[str] = None) -> List[str]:
        return [sid for sid, s in self.sessions.items() if user_id is None or s.user_id == user_id]

    async def delete_session(self, session_id: str) -> bool:
        return self.sessions.pop(session_id, None) is not None

    async def cleanup_old_sessions(self, max_age_hours: int = 24) -> int:
        cutoff = datetime.now(timezone.utc) - timedelta(hours=max_age_hours)
        stale = [sid for sid, s in self.sessions.items() if s.updated_at < cutoff]
        for sid in stale:
            del self.sessions[sid]
        return len(stale)

    async def get_memory_stats(self) -> Dict[str, int]:
        events = sum(len(s.events) for s in self.sessions.values())
        count = len(self.sessions)
        return {"total_sessions": count, "total_events": events, "avg_events_per_session": int(events / count) if count else 0}
