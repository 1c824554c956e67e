"""KAOS through both clients, in the agent the client names."""

import re

from support import label, rejects


def test_kaos_sessions_events_context_and_cleanup(who):
    client = who["agent"]
    user = f"user_{label()}"
    created = client.kaos.create_session({"app_name": "agent", "user_id": user})
    assert created.created is True
    assert re.fullmatch(r"session_[0-9a-f]{12}", created.session_id)
    sid = created.session_id
    events = [
        {"event_type": "user_message", "content": "What is 1+2?"},
        {"event_type": "tool_call", "content": {"tool": "calc", "arguments": {"a": 1, "b": 2}}},
        {"event_type": "agent_response", "content": "The answer is 3"},
    ]
    added = client.kaos.add_events(sid, events)
    assert added.added == 3
    stored = client.kaos.session_events(sid)
    assert [e.event_id for e in stored.events] == added.event_ids
    # What a retry after a lost answer sends: the same events with the same ids, which add nothing.
    client.kaos.add_events(sid, [{"event_type": e.event_type, "content": e.content, "event_id": e.event_id} for e in stored.events])
    assert client.kaos.session_events(sid).total == 3

    assert client.kaos.session_events(sid, ["tool_call"]).total == 1
    assert client.kaos.context(sid).context == "User: What is 1+2?\nAssistant: The answer is 3"
    assert client.kaos.context(sid, 1).context == "Assistant: The answer is 3"
    assert client.kaos.get_session(sid).user_id == user
    assert len(client.kaos.events(limit=2, session_id=sid).events) == 2
    assert client.kaos.list_sessions(user).sessions == [sid]
    assert client.kaos.stats().total_events >= 3
    assert client.kaos.cleanup(1_000_000).cleaned == 0

    assert client.kaos.delete_session(sid).deleted is True
    rejects(lambda: client.kaos.get_session(sid), "kaos", 404, "RESOURCE_NOT_FOUND")
    rejects(lambda: client.kaos.add_events(sid, events[0]), "kaos", 404, "RESOURCE_NOT_FOUND")
