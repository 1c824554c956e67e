"""MemstreamMemory as KAOS's own agent and server use their memory: the server's constructor
arguments, the events a delegating and failing agent writes, a large tool result, Python's numbers,
the ids a URL path cannot carry, and the trace ids KAOS adds when its telemetry is on."""

import math
import os
import sys
import types
import uuid

import pytest

from memstream_kaos import MemstreamError, MemstreamMemory

from conftest import server_url


def agent_memory(**limits):
    return MemstreamMemory(server_url(), agent=f"kaos-{uuid.uuid4().hex[:8]}", api_key=os.environ.get("MEMSTREAM_API_KEY"), **limits)


async def test_built_as_kaos_server_builds_its_memory_and_the_limits_hold():
    # KAOS's server: LocalMemory(max_sessions=settings.memory_max_sessions, max_events_per_session=...)
    async with agent_memory(max_sessions=3, max_events_per_session=2) as memory:
        for sid in ["s1", "s2", "s3", "s4"]:
            await memory.create_session("agent", "user", sid)
        assert await memory.list_sessions() == ["s2", "s3", "s4"]
        for text in ["one", "two", "three"]:
            assert await memory.add_event("s4", memory.create_event("user_message", text))
        assert [e.content for e in await memory.get_session_events("s4")] == ["two", "three"]


async def test_a_worker_given_a_delegated_task_whose_own_sub_agent_fails():
    async with agent_memory() as memory:
        # What KAOS's Agent.process_message writes for a "task-delegation" message, then a failed delegation.
        session = await memory.get_or_create_session("coordinator-turn-1", "agent", "user")
        writes = [
            memory.create_event("task_delegation_received", "Summarise the quarterly report"),
            memory.create_event("delegation_request", {"agent": "reader", "task": "read the report"}),
            memory.create_event("delegation_error", {"agent": "reader", "error": "HTTP 503 from reader"}),
            memory.create_event("agent_response", "[Delegation failed: HTTP 503 from reader]"),
        ]
        for event in writes:
            assert await memory.add_event(session, event) is True
        stored = await memory.get_session_events(session)
        assert [e.event_type for e in stored] == [e.event_type for e in writes]
        assert await memory.build_conversation_context(session) == "Assistant: [Delegation failed: HTTP 503 from reader]"


async def test_a_500_kb_tool_result_is_kept_whole():
    async with agent_memory() as memory:
        session = await memory.create_session("agent", "user")
        result = {"tool": "fetch_page", "result": "<p>" + "x" * 500_000 + "</p>"}
        assert await memory.add_event(session, memory.create_event("tool_result", result))
        assert (await memory.get_session_events(session, ["tool_result"]))[0].content == result
        with pytest.raises(MemstreamError) as refused:
            await memory.add_event(session, memory.create_event("tool_result", "y" * (1024 * 1024 + 1)))
        assert refused.value.status == 413 and "at most 1048576" in refused.value.detail


async def test_floats_big_integers_and_negative_zero_come_back_as_written():
    async with agent_memory() as memory:
        session = await memory.create_session("agent", "user")
        content = {"price": 8.0, "count": 8, "id": 2**64 + 1, "zero": -0.0, "tiny": 1e-07, "items": [1.5, True, None]}
        assert await memory.add_event(session, memory.create_event("user_message", content, {"score": 1.0}))
        back = (await memory.get_session_events(session))[0]
        assert back.content == content and back.metadata == {"score": 1.0}
        assert isinstance(back.content["price"], float) and isinstance(back.content["count"], int)
        assert back.content["id"] == 18446744073709551617
        assert math.copysign(1.0, back.content["zero"]) == -1.0
        assert isinstance(back.metadata["score"], float)
        # KAOS builds its context with an f-string: content that is not text reads as Python prints it.
        assert await memory.build_conversation_context(session) == f"User: {content}"


@pytest.mark.parametrize("odd", [".", "..", ""])
async def test_ids_a_path_cannot_carry_lose_nothing_and_say_so(odd):
    async with agent_memory() as memory:
        other = await memory.create_session("agent", "user", "events")
        # The path must not collapse: /memory/sessions/./events would be /memory/sessions/events.
        assert await memory.add_event(odd, memory.create_event("user_message", "where does this go?")) is False
        assert await memory.get_session(odd) is None
        assert await memory.get_session_events(odd) == []
        assert await memory.build_conversation_context(odd) == ""
        assert await memory.delete_session(odd) is False
        assert await memory.get_session_events(other) == []
        if odd:
            with pytest.raises(MemstreamError) as refused:
                await memory.create_session("agent", "user", odd)
            assert refused.value.status == 400 and "not . or .." in refused.value.detail
        else:
            # LocalMemory generates an id when given none (or an empty one).
            assert (await memory.create_session("agent", "user", odd)).startswith("session_")


async def test_trace_ids_join_the_metadata_when_kaos_telemetry_is_on(monkeypatch):
    # KAOS's telemetry.manager, as its agent process has it with OpenTelemetry initialised.
    package = types.ModuleType("telemetry")
    manager = types.ModuleType("telemetry.manager")
    manager.is_otel_enabled = lambda: True
    manager.get_current_trace_context = lambda: {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "b7ad6b7169203331"}
    package.manager = manager
    monkeypatch.setitem(sys.modules, "telemetry", package)
    monkeypatch.setitem(sys.modules, "telemetry.manager", manager)
    async with agent_memory() as memory:
        session = await memory.create_session("agent", "user")
        event = memory.create_event("user_message", "traced", {"source": "api"})
        assert event.metadata == {"source": "api", "trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "b7ad6b7169203331"}
        assert await memory.add_event(session, event)
        assert (await memory.get_session_events(session))[0].metadata == event.metadata
    manager.is_otel_enabled = lambda: False
    async with agent_memory() as memory:
        assert memory.create_event("user_message", "untraced").metadata == {}
