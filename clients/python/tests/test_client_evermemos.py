"""EverMemOS and the Memory Agent through both clients, against the real server."""

from memstream import is_accepted
from memstream.models.evermemos import Accepted, GroupChatMessage

from support import label, rejects, wait_for


def message(group: str, i: int, content: str) -> GroupChatMessage:
    return GroupChatMessage(group_id=group, message_id=f"m{i}", create_time=f"2025-01-15T10:0{i}:00Z", sender="u1", content=content)


def test_evermemos_writes_reads_searches_and_forgets(who):
    client = who["agent"]
    group = f"py_{label()}"
    meta = client.evermemos.upsert_conversation_meta({
        "version": "1.0", "scene": "group_chat", "scene_desc": "planning", "name": "Offsite", "description": "Team offsite planning",
        "group_id": group, "created_at": "2025-01-15T09:00:00Z", "default_timezone": "UTC", "user_details": {"u1": {"full_name": "Ana", "role": "user"}},
    })
    assert is_accepted(meta) or meta.result["group_id"] == group
    client.evermemos.patch_conversation_meta({"group_id": group, "description": "Offsite in Lisbon"})
    assert client.evermemos.get_conversation_meta(group).result["description"] == "Offsite in Lisbon"

    texts = ["Shall we hold the offsite in Lisbon?", "Lisbon in May works for me.", "Booking the venue on Friday."]
    for i, content in enumerate(texts):
        answer = client.evermemos.write(message(group, i, content))
        assert not isinstance(answer, Accepted)
        assert (answer.result.message_id, answer.result.duplicate) == (f"m{i}", False)
    again = client.evermemos.write(message(group, 0, texts[0]))
    assert not isinstance(again, Accepted) and again.result.duplicate, "a resent message_id is recognised, not stored again"

    background = client.evermemos.write(message(group, 3, "See you there."), sync=False)
    assert isinstance(background, Accepted)
    status = wait_for("the background write stored", lambda: (s := client.evermemos.request_status(background.request_id).result).status != "accepted" and s)
    assert status.status in ("stored", "extracted")

    page = client.evermemos.list({"group_id": group})
    assert page.result.total_count == 4
    assert page.result.memories[0].memory_type == "message"

    wait_for("every message indexed", lambda: client.evermemos.memory_stats(group).result.indexed_messages == 4)
    request = {"query": "venue Friday", "group_id": group, "retrieve_method": "keyword", "memory_types": ["message"]}
    hits = client.evermemos.search(request)
    assert hits.result.memories[0].id == "m2"
    assert hits.result.memories[0].score_parts is None, "score parts only when asked for"
    explained = client.evermemos.search({**request, "explain": True}).result.memories[0]
    parts = explained.score_parts
    assert parts is not None and parts.keyword is not None and parts.keyword.rank == 1
    assert abs(sum(t.weight * t.value for t in parts.terms) / parts.divisor - parts.fused) < 1e-9
    grouped = client.evermemos.search_by_query(request).result
    assert [list(g) for g in grouped.memories] == [[group]], "a GET search answers grouped by group, as EverMemOS does"
    assert sorted(m.id for m in grouped.hits()) == sorted(m.id for m in hits.result.memories)

    assert client.evermemos.flush(group).result.status_info in ("extracted", "extracting")

    context = client.memory_agent.context(group)
    assert context.conversation_id == group
    assert context.memory is not None or len(context.gap_messages) == 4
    text = client.memory_agent.context_text(group)
    assert isinstance(text, str) and text
    assert isinstance(client.memory_agent.summaries(group).summaries, list)
    rejects(lambda: client.memory_agent.context(f"{group}_none"), "memory-agent", 404, "RESOURCE_NOT_FOUND")

    assert client.evermemos.delete({"group_id": group, "message_id": "m3"}).result.deleted_messages == 1
    rejects(lambda: client.evermemos.delete({"group_id": group, "message_id": "m3"}), "evermemos", 404, "RESOURCE_NOT_FOUND")
    rejects(lambda: client.evermemos.get_conversation_meta(f"{group}_none"), "evermemos", 404, "RESOURCE_NOT_FOUND")
    # The model allows what the server refuses: a create_time that is not a date.
    bad = {"group_id": group, "message_id": "bad", "create_time": "yesterday", "sender": "u1", "content": "x"}
    rejects(lambda: client.evermemos.write(bad), "evermemos", 400, "INVALID_PARAMETER")
    assert client.evermemos.delete({"group_id": group}).result.deleted_messages == 3
