import os
import uuid

from memstream_kaos import MemstreamMemory

from conftest import limits, server_url
from reference_memory import ReferenceMemory
from scenario import run_scenario


async def test_the_client_behaves_as_local_memory_would(memory):
    max_sessions, max_events = limits()
    expected = await run_scenario(ReferenceMemory(max_sessions, max_events), max_sessions, max_events)
    actual = await run_scenario(memory, max_sessions, max_events)
    for (step, want), (_, got) in zip(expected, actual):
        assert got == want, f"{step}: {got!r} != {want!r}"
    assert len(actual) == len(expected)


async def test_agents_are_separate_namespaces():
    key = os.environ.get("MEMSTREAM_API_KEY")
    async with MemstreamMemory(server_url(), agent=f"a-{uuid.uuid4().hex[:8]}", api_key=key) as a, MemstreamMemory(server_url(), agent=f"b-{uuid.uuid4().hex[:8]}", api_key=key) as b:
        session = await a.create_session("agent", "alice", session_id="shared-id")
        assert await a.add_event(session, a.create_event("user_message", "for a only"))
        assert await b.list_sessions() == []
        assert await b.get_session("shared-id") is None
        assert await b.add_event("shared-id", b.create_event("user_message", "not b's")) is False
        assert [e.content for e in await a.get_session_events("shared-id")] == ["for a only"]


async def test_a_resent_event_is_stored_once(memory):
    session = await memory.create_session("agent", "alice")
    event = memory.create_event("user_message", "once")
    assert await memory.add_event(session, event)
    assert await memory.add_event(session, event)
    events = await memory.get_session_events(session)
    assert [(e.event_id, e.content) for e in events] == [(event.event_id, "once")]
    assert events[0].timestamp == event.timestamp, "the time the client made the event with is kept to the microsecond"


async def test_bad_input_raises_with_the_server_code(memory):
    session = await memory.create_session("agent", "alice")
    try:
        await memory.add_event(session, memory.create_event(7, "an event type is a string"))  # type: ignore[arg-type]
    except Exception as err:  # noqa: BLE001 - the type is what is checked
        assert type(err).__name__ == "MemstreamError"
        assert err.status == 400 and err.code == "INVALID_PARAMETER"
    else:
        raise AssertionError("an event type that is not a string was accepted")
    assert await memory.get_session_events(session) == []
