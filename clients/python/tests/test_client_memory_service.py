"""memory-service through both clients, in both layouts, as people and as an agent."""

from datetime import datetime, timezone

from memstream.models.memory_service import ResponseEnd, ResponseToken

from support import authenticated, label, rejects, wait_for


def test_user_layout_conversations_forks_sharing_transfer_and_search(who):
    alice, bob = who["alice"], who["bob"]
    user = alice.memory_service.user
    tag = label()
    trip = user.create({"title": f"Trip {tag}"})
    m1 = user.append_message(trip.id, {"content": f"Plan a trip to Lisbon {tag}"})
    m2 = user.append_message(trip.id, {"content": "In May?"})
    assert [m.id for m in user.list_messages(trip.id).data] == [m1.id, m2.id]
    assert [m.id for m in user.list_messages(trip.id, after=m1.id, limit=5).data] == [m2.id]
    fork = user.fork(trip.id, m2.id, {"title": "June instead", "new_message": {"content": "In June?"}})
    # A fork shows the history up to the message before the one it was made at.
    assert fork.forked_at_message_id == m1.id
    assert len(user.forks(trip.id).data) >= 2
    assert any(c.id == trip.id for c in user.list().data)

    if authenticated():
        rejects(lambda: bob.memory_service.user.get(trip.id), "memory-service", 404, "not_found")
    assert user.share(trip.id, "bob", "reader").access_level == "reader"
    if authenticated():
        assert bob.memory_service.user.get(trip.id).access_level == "reader"
        rejects(lambda: bob.memory_service.user.append_message(trip.id, {"content": "may I?"}), "memory-service", 403, "forbidden")
    assert user.update_membership(trip.id, "bob", "writer").access_level == "writer"
    assert any(m.user_id == "bob" for m in user.memberships(trip.id).data)

    assert user.transfer_ownership(trip.id, "bob").status == "pending"
    assert bob.memory_service.user.pending_transfer(trip.id).to_user_id == "bob"
    if authenticated():
        # Without authentication there is one caller, who is never the transfer's recipient.
        assert bob.memory_service.user.decline_transfer(trip.id).status == "declined"
        user.transfer_ownership(trip.id, "bob")
    assert bob.memory_service.user.accept_transfer(trip.id).status == "accepted"
    assert bob.memory_service.user.get(trip.id).owner_user_id == "bob"
    if authenticated():
        bob.memory_service.user.revoke_membership(trip.id, "alice")
        rejects(lambda: user.get(trip.id), "memory-service", 404, "not_found")
    else:
        user.share(trip.id, "carol", "reader")
        user.revoke_membership(trip.id, "carol")
        assert all(m.user_id != "carol" for m in user.memberships(trip.id).data)

    found = wait_for("the message searchable", lambda: next((h for h in bob.memory_service.user.search({"query": f"Lisbon {tag}", "top_k": 5}).data if h.message.id == m1.id), None))
    assert found.score > 0
    bob.memory_service.user.delete(trip.id)
    rejects(lambda: bob.memory_service.user.get(trip.id), "memory-service", 404, "not_found")


def test_code_layout_agent_routes_summaries_and_the_response_resumer(who):
    alice, agent = who["alice"], who["agent"]
    code = alice.memory_service.conversations
    tag = label()
    notes = code.create({"title": f"Notes {tag}", "metadata": {"label": tag}})
    first = code.append_message(notes.id, {"content": [{"type": "text", "text": "first note"}]})
    assert [m.content for m in code.list_messages(notes.id).data] == [[{"type": "text", "text": "first note"}]]
    assert [m.id for m in code.list_messages(notes.id, {"channel": "history", "epoch": "all"}).data] == [first.id]
    assert code.get(notes.id).title == f"Notes {tag}"
    assert code.share_at_forks(notes.id, "carol", "reader").user_id == "carol"
    assert code.share(notes.id, "dave", "reader").user_id == "dave"
    assert code.update_membership(notes.id, "dave", "writer").access_level == "writer"
    code.revoke_membership(notes.id, "dave")
    assert sorted(m.user_id for m in code.memberships(notes.id).data if m.access_level != "owner") == ["carol"]
    branch = code.fork(notes.id, first.id, title="branch")
    assert branch.forked_at_conversation_id == notes.id
    assert branch.id in [f.conversation_id for f in code.forks(notes.id).data]
    assert any(c.id == notes.id for c in code.list({"mode": "roots"}).data)

    bulk = agent.memory_service.agent.append_messages(notes.id, {"messages": [{"role": "assistant", "content": "Noted."}, {"role": "system", "content": "likes notes", "visibility": "agent"}]})
    assert len(bulk.data) == 2
    last = agent.memory_service.conversations.list_messages(notes.id).data[-1]
    now = datetime.now(timezone.utc).isoformat()
    agent.memory_service.agent.create_summary(notes.id, {"title": "Note summary", "summary": "Notes so far", "until_message_id": last.id, "summarized_at": now})
    assert code.get(notes.id).title == "Note summary"
    assert len(agent.memory_service.agent.context(notes.id).messages) >= 1
    assert agent.memory_service.agent.context(notes.id, after_message_id=last.id, limit=10).conversation_id == notes.id
    summary = {"title": "t", "summary": "s", "until_message_id": last.id, "summarized_at": now}
    if authenticated():
        rejects(lambda: code.create_summary(notes.id, summary), "memory-service", 403, "forbidden")
    agent.memory_service.conversations.create_summary(notes.id, summary)
    assert code.get(notes.id).title == "t"

    code.share(notes.id, "bob", "reader")  # ownership is offered to members only
    if authenticated():
        transfer = code.transfer_ownership(notes.id, "bob")
        assert code.pending_transfer(notes.id).id == transfer.id
        code.end_transfer(transfer.id)  # withdrawn by its owner
        rejects(lambda: code.pending_transfer(notes.id), "memory-service", 404, "not_found")
        code.transfer_ownership(notes.id, "bob")
        assert who["bob"].memory_service.conversations.decline_transfer(notes.id).status == "declined"
        code.transfer_ownership(notes.id, "bob")
        assert who["bob"].memory_service.conversations.accept_transfer(notes.id).status == "accepted"
        code = who["bob"].memory_service.conversations
    else:
        code.transfer_ownership(notes.id, "bob")
        assert code.pending_transfer(notes.id).to_user_id == "bob"
        assert code.accept_transfer(notes.id).status == "accepted"

    code.record_response(notes.id, ["Hel", "lo"])
    following = code.follow_response(notes.id)
    assert [next(following), next(following)] == [ResponseToken("Hel"), ResponseToken("lo")]
    code.record_response(notes.id, ["!"], done=True)
    assert list(following) == [ResponseToken("!"), ResponseEnd("done")]

    code.record_response(branch.id, ["x"])
    assert code.cancel_response(branch.id).cancelled is True
    rejects(lambda: code.record_response(branch.id, ["y"]), "memory-service", 409, "conflict")

    code.delete(notes.id)
    rejects(lambda: code.get(branch.id), "memory-service", 404, "not_found")
