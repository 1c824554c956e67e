"""The two record types KAOS agents handle, with the same fields and dictionary forms as KAOS's own."""

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Deque, Dict


@dataclass
class MemoryEvent:
    """One thing that happened in a session: a message, a tool call or result, a delegation, an error."""

    event_id: str
    timestamp: datetime
    event_type: str
    content: Any
    metadata: Dict[str, Any]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "event_id": self.event_id,
            "timestamp": self.timestamp.isoformat(),
            "event_type": self.event_type,
            "content": self.content,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "MemoryEvent":
        return cls(
            event_id=data["event_id"],
            timestamp=datetime.fromisoformat(data["timestamp"]),
            event_type=data["event_type"],
            content=data["content"],
            metadata=data["metadata"],
        )


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class SessionMemory:
    """A session and its events, oldest first (the server keeps only the latest, as KAOS's bounded deque does)."""

    session_id: str
    user_id: str
    app_name: str
    events: Deque[MemoryEvent] = field(default_factory=deque)
    created_at: datetime = field(default_factory=_now)
    updated_at: datetime = field(default_factory=_now)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "session_id": self.session_id,
            "user_id": self.user_id,
            "app_name": self.app_name,
            "events": [e.to_dict() for e in self.events],
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "SessionMemory":
        return cls(
            session_id=data["session_id"],
            user_id=data["user_id"],
            app_name=data["app_name"],
            events=deque(MemoryEvent.from_dict(e) for e in data["events"]),
            created_at=datetime.fromisoformat(data["created_at"]),
            updated_at=datetime.fromisoformat(data["updated_at"]),
        )
