"""ARK through both clients: the stream is an iterator of parsed chunks that replays, turns live, and ends."""

from concurrent.futures import ThreadPoolExecutor

from memstream.models.ark import ArkChunkEvent, ArkEnd, ArkLive

from support import label, rejects


def content_of(event):
    return event.content if isinstance(event, ArkChunkEvent) else event.type


def test_ark_messages_sessions_and_streams(who):
    client = who["agent"]
    session = f"py-ark-{label()}"
    stored = client.ark.post_messages({"session_id": session, "query_id": "q1", "messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi there"}]})
    assert (stored.status, stored.count) == ("ok", 2)
    assert [r.message["content"] for r in client.ark.list_messages({"session_id": session}).messages] == ["hello", "hi there"]
    assert session in client.ark.sessions().sessions

    stream = client.ark.stream(session, from_beginning=True)
    assert [content_of(next(stream)) for _ in range(3)] == ["hello", "hi there", "live"]
    chunk = {"id": session, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "tok"}}]}
    assert client.ark.relay_chunks(session, [chunk]).chunks == 1
    assert content_of(next(stream)) == "tok"
    assert client.ark.complete_session(session).status == "completed"
    rest = list(stream)
    assert isinstance(rest[-1], ArkEnd), "completion ends the stream"
    assert client.ark.complete_stream(session).status == "already_completed"

    # A reader waits for a session that does not exist yet; the first event is read while it is written.
    later = f"{session}-later"
    waiting = client.ark.stream(later, from_beginning=True, wait_for_session="5m")
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(next, waiting)
        client.ark.post_messages({"session_id": later, "messages": [{"role": "user", "content": "here now"}]})
        assert content_of(first.result()) == "here now"
    waiting.close()

    rejects(lambda: client.ark.post_messages({"session_id": session, "messages": []}), "ark", 400, "INVALID_PARAMETER")
    rejects(lambda: client.ark.complete_session(f"{session}-none"), "ark", 404, "RESOURCE_NOT_FOUND")
    # An ARK session is a conversation like any other: EverMemOS removes it.
    assert client.evermemos.delete({"group_id": session}).result.deleted_messages == 2
    assert client.evermemos.delete({"group_id": later}).result.deleted_messages == 1
    assert ArkLive().type == "live"
