"""One scenario of a KAOS agent's memory, written once against the LocalMemory interface.

It returns a transcript of every call and its result with the values each implementation makes
up for itself (generated ids, times) replaced by placeholders in order of appearance, so two
implementations that behave alike give equal transcripts.
"""

from typing import Any, Dict, List, Tuple


class Normaliser:
    def __init__(self) -> None:
        self.names: Dict[str, str] = {}

    def id(self, value: str) -> str:
        if value.startswith(("session_", "event_", "null_")):
            prefix = value.split("_", 1)[0]
            return self.names.setdefault(value, f"<{prefix} {len(self.names) + 1}>")
        return value

    def event(self, e: Any) -> Tuple[str, Any, Any]:
        return (e.event_type, e.content, e.metadata)

    def session(self, s: Any) -> Any:
        if s is None:
            return None
        d = s.to_dict()
        return {"session_id": self.id(d["session_id"]), "user_id": d["user_id"], "app_name": d["app_name"], "events": [self.event(e) for e in s.events]}


async def run_scenario(memory: Any, max_sessions: int, max_events: int) -> List[Tuple[str, Any]]:
    n = Normaliser()
    out: List[Tuple[str, Any]] = []

    def note(step: str, value: Any) -> None:
        out.append((step, value))

    first = await memory.create_session("agent", "alice")
    note("create without id", n.id(first))
    note("create with id", await memory.create_session("agent", "bob", session_id="chosen"))
    note("get_or_create existing", await memory.get_or_create_session("chosen"))
    note("get_or_create new", await memory.get_or_create_session("fresh", user_id="carol"))

    for event in [
        memory.create_event("user_message", "What is 1+2?", {"source": "api"}),
        memory.create_event("tool_call", {"tool": "calc", "arguments": {"b": 2, "a": 1}}),
        memory.create_event("tool_result", {"tool": "calc", "result": 3}),
        memory.create_event("agent_response", "The answer is 3"),
        memory.create_event("delegation_request", {"agent": "worker", "task": "check"}),
        memory.create_event("error", "Connection failed"),
    ]:
        note(f"add {event.event_type}", await memory.add_event(first, event))
    note("add to a missing session", await memory.add_event("missing", memory.create_event("user_message", "lost")))

    note("events", [n.event(e) for e in await memory.get_session_events(first)])
    note("messages only", [n.event(e) for e in await memory.get_session_events(first, ["user_message", "agent_response"])])
    note("events of a missing session", await memory.get_session_events("missing"))
    note("context", await memory.build_conversation_context(first))
    note("context of one", await memory.build_conversation_context(first, max_events=1))
    note("context of a missing session", await memory.build_conversation_context("missing"))
    note("session", n.session(await memory.get_session(first)))
    note("missing session", await memory.get_session("missing"))
    note("sessions", [n.id(s) for s in await memory.list_sessions()])
    note("sessions of bob", await memory.list_sessions(user_id="bob"))

    for i in range(max_events + 2):
        await memory.add_event("chosen", memory.create_event("user_message", f"turn {i}"))
    note("capped events", [e.content for e in await memory.get_session_events("chosen")])
    note("stats", await memory.get_memory_stats())

    # create_session with an id in use starts it over, empty, in its old place in the listing
    note("recreate first", n.id(await memory.create_session("agent", "alice", session_id=first)))
    note("recreated events", await memory.get_session_events(first))
    note("sessions after recreate", [n.id(s) for s in await memory.list_sessions()])

    note("delete", await memory.delete_session("fresh"))
    note("delete again", await memory.delete_session("fresh"))

    # Fill up to the limit, then one more: the least recently updated tenth goes first.
    await memory.add_event("chosen", memory.create_event("agent_response", "still active"))
    have = len(await memory.list_sessions())
    for i in range(max_sessions - have + 1):
        await memory.create_session("agent", "dave", session_id=f"filler-{i}")
    note("sessions after eviction", [n.id(s) for s in await memory.list_sessions()])
    note("stats after eviction", await memory.get_memory_stats())

    note("cleanup of a day", await memory.cleanup_old_sessions(24))
    note("cleanup of everything", await memory.cleanup_old_sessions(0))
    note("stats after cleanup", await memory.get_memory_stats())
    return out
