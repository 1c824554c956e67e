"""What the client tests share: the server under test, its callers, and the async client driven
from the same scenario code as the blocking one."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import threading
import time
import uuid
from typing import Any, Callable, Dict, Iterator, Optional, TypeVar

import pytest

from memstream import AsyncMemstream, Memstream, MemstreamError

T = TypeVar("T")


def server_url() -> str:
    url = os.environ.get("MEMSTREAM_URL")
    # Failing, not skipping: a run without a server has not shown the client works.
    assert url, "MEMSTREAM_URL must point at a memstream server (test/e2e/python-client.test.ts sets it)"
    return url


def gateway_url() -> Optional[str]:
    return os.environ.get("MEMSTREAM_GATEWAY_URL")


def authenticated() -> bool:
    """True when the server checks credentials (the runner gives its JWT secret and agent key)."""
    return bool(os.environ.get("MEMSTREAM_JWT_SECRET"))


def label() -> str:
    return uuid.uuid4().hex[:10]


def user_token(subject: str) -> str:
    """An HS256 JWT for a person, signed with the server's test secret."""
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    now = int(time.time())
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64(json.dumps({"sub": subject, "iat": now - 60, "exp": now + 3600}).encode())
    secret = os.environ["MEMSTREAM_JWT_SECRET"].encode()
    signature = b64(hmac.new(secret, f"{header}.{claims}".encode(), hashlib.sha256).digest())
    return f"{header}.{claims}.{signature}"


def wait_for(what: str, probe: Callable[[], Optional[T]], within_s: float = 60.0) -> T:
    """Polls until ``probe`` answers something other than None or False: the server forms memory
    in the background, so a test waits for the state it needs instead of sleeping."""
    deadline = time.monotonic() + within_s
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


def rejects(call: Callable[[], Any], family: str, status: int, code: str) -> MemstreamError:
    with pytest.raises(MemstreamError) as caught:
        call()
    err = caught.value
    assert (err.family, err.status, err.code) == (family, status, code), repr(err)
    return err


class LoopThread:
    """An event loop on a thread of its own, so blocking test code can await the async client."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, awaitable: Any) -> Any:
        async def wrapped() -> Any:
            return await awaitable

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class Blocking:
    """The async client seen through blocking calls: each method's awaitable is run on the loop,
    and each async iterator becomes an iterator. Scenarios are written once and run against
    ``Memstream`` and, through this, ``AsyncMemstream``."""

    def __init__(self, target: Any, loop: LoopThread) -> None:
        self._target = target
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return Blocking(value, self._loop)

        def call(*args: Any, **kwargs: Any) -> Any:
            result = value(*args, **kwargs)
            if hasattr(result, "__anext__"):
                return BlockingIterator(result, self._loop)
            return self._loop.run(result)

        return call


class BlockingIterator:
    def __init__(self, iterator: Any, loop: LoopThread) -> None:
        self._iterator = iterator
        self._loop = loop

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            return self._loop.run(self._iterator.__anext__())
        except StopAsyncIteration:
            raise StopIteration from None

    def close(self) -> None:
        self._loop.run(self._iterator.aclose())


def make_callers(kind: str, loop: Optional[LoopThread]) -> Dict[str, Any]:
    """An agent (the API key) and two people (tokens minted per call); with authentication off
    every caller is the server's one local user."""
    kaos_agent = f"pytest-{label()}"  # KAOS limits sessions per agent: each scenario has its own
    options: Dict[str, Any] = {"kaos_agent": kaos_agent}
    if gateway_url():
        options["gateway_url"] = gateway_url()
    api_key = os.environ.get("MEMSTREAM_API_KEY")
    if kind == "sync":
        agent: Any = Memstream(server_url(), **options, **({"api_key": api_key} if api_key else {}))
    else:
        assert loop is not None
        agent = AsyncMemstream(server_url(), **options, **({"api_key": api_key} if api_key else {}))
    callers = {"agent": agent, "anonymous": agent.with_credentials(kaos_agent=kaos_agent)}
    for person in ("alice", "bob"):
        callers[person] = agent.with_credentials(token=(lambda p=person: user_token(p))) if authenticated() else agent
    return callers if kind == "sync" else {name: Blocking(c, loop) for name, c in callers.items()}
