import os
import uuid

import pytest

from memstream_kaos import MemstreamMemory


def server_url() -> str:
    url = os.environ.get("MEMSTREAM_URL")
    # Failing, not skipping: a run without a server has not shown the client works.
    assert url, "MEMSTREAM_URL must point at a memstream server (test/e2e/kaos-python-client.test.ts sets it)"
    return url


def limits() -> tuple:
    return int(os.environ.get("MEMSTREAM_MAX_SESSIONS", "1000")), int(os.environ.get("MEMSTREAM_MAX_SESSION_EVENTS", "500"))


@pytest.fixture
async def memory():
    """A client on an agent namespace of its own, so each test starts empty."""
    async with MemstreamMemory(server_url(), agent=f"pytest-{uuid.uuid4().hex[:8]}", api_key=os.environ.get("MEMSTREAM_API_KEY")) as m:
        yield m


@pytest.fixture(scope="session")
def loop_thread():
    from support import LoopThread

    thread = LoopThread()
    yield thread
    thread.stop()


# Every scenario of the client runs through Memstream and through AsyncMemstream (the
# distributed run, which shows the routing rather than the clients, picks one).
@pytest.fixture(params=os.environ.get("MEMSTREAM_CLIENTS", "sync,async").split(","))
def who(request, loop_thread):
    from support import make_callers

    callers = make_callers(request.param, loop_thread)
    yield callers
    agent = callers["agent"]
    if request.param == "sync":
        agent.close()
    else:
        loop_thread.run(agent._target.aclose())
