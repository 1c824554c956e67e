"""With authentication on (the runner's first server), credentials decide who calls."""

from memstream import AsyncMemstream, Memstream

from support import authenticated, rejects, server_url


def test_the_runner_started_this_server_with_authentication():
    # This file is given only to the run against a server with keys and a JWT secret.
    assert authenticated()


def test_without_credentials_every_family_answers_401_in_its_own_code():
    with Memstream(server_url(), retry=False) as anonymous:
        rejects(lambda: anonymous.evermemos.list({"group_id": "g"}), "evermemos", 401, "UNAUTHENTICATED")
        rejects(lambda: anonymous.ark.sessions(), "ark", 401, "UNAUTHENTICATED")
        rejects(lambda: anonymous.memory_agent.context("g"), "memory-agent", 401, "UNAUTHENTICATED")
        rejects(lambda: anonymous.memory_service.conversations.list(), "memory-service", 401, "unauthorized")
        rejects(lambda: anonymous.kaos.stats(), "kaos", 401, "UNAUTHENTICATED")


async def test_a_wrong_key_is_refused_by_the_async_client_too():
    async with AsyncMemstream(server_url(), api_key="not-a-key-0123456789") as client:
        try:
            await client.kaos.stats()
        except Exception as err:  # noqa: BLE001 - the assertion below names what it must be
            caught = err
        assert (getattr(caught, "status", None), getattr(caught, "code", None)) == (401, "UNAUTHENTICATED")


def test_a_token_function_is_asked_before_every_call():
    from support import user_token

    asked = []

    def token() -> str:
        asked.append(1)
        return user_token("carol")

    with Memstream(server_url(), token=token) as carol:
        created = carol.memory_service.user.create({"title": "mine"})
        assert carol.memory_service.user.get(created.id).owner_user_id == "carol"
        carol.memory_service.user.delete(created.id)
    assert len(asked) == 3


def test_the_list_across_families_holds_only_the_callers_own_and_dead_letters_are_for_auditors():
    from support import user_token

    with Memstream(server_url(), token=lambda: user_token("dora")) as dora, Memstream(
        server_url(), token=lambda: user_token("emil")
    ) as emil:
        mine = dora.memory_service.user.create({"title": "dora's across-families check"})
        theirs = emil.memory_service.user.create({"title": "emil's across-families check"})
        try:
            seen = [c.id for c in dora.admin.conversations_across({"family": "memory-service", "limit": 200}).data]
            assert mine.id in seen
            assert theirs.id not in seen
            rejects(lambda: dora.admin.dead_letters(), "memory-service", 403, "forbidden")
            lags = dora.admin.pipeline_lag().data
            assert lags and all(g.lag == sum(p.lag for p in g.partitions) for g in lags)
        finally:
            dora.memory_service.user.delete(mine.id)
            emil.memory_service.user.delete(theirs.id)
