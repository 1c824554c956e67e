from collections import deque
from datetime import datetime, timezone

from memstream_kaos import MemoryEvent, SessionMemory


def test_an_event_round_trips_through_its_dictionary():
    event = MemoryEvent("event_1234abcd", datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc), "tool_call", {"tool": "calc"}, {"k": 1})
    data = event.to_dict()
    assert data == {"event_id": "event_1234abcd", "timestamp": "2026-01-02T03:04:05.123456+00:00", "event_type": "tool_call", "content": {"tool": "calc"}, "metadata": {"k": 1}}
    assert MemoryEvent.from_dict(data) == event


def test_a_session_round_trips_through_its_dictionary():
    when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    event = MemoryEvent("event_1", when, "user_message", "hi", {})
    session = SessionMemory("s", "u", "app", deque([event]), when, when)
    data = session.to_dict()
    assert list(data) == ["session_id", "user_id", "app_name", "events", "created_at", "updated_at"]
    assert data["created_at"] == "2026-01-02T00:00:00+00:00"
    back = SessionMemory.from_dict(data)
    assert back.to_dict() == data
