"""The one place the client talks HTTP: credentials, timeouts, and retries.

The attempts and waits of a call are one generator (:func:`exchange`) that says what to do next:
send this request, or sleep this long. The blocking and the asyncio transports only carry that
out, so both clients follow exactly the same rule.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any, AsyncIterator, Callable, Generator, Iterator, Mapping, Optional, Tuple, Union
from urllib.parse import quote

import httpx

from ._operation import Call, Stream
from ._retry import Retry, retry_after_of
from ._sse import StreamReader
from .errors import MemstreamError, error_from_answer
from .routes import Route

Token = Union[str, Callable[[], str]]
Outcome = Union[httpx.Response, httpx.TransportError]


@dataclass(frozen=True)
class Settings:
    """What every call of a client shares; see :class:`~memstream.Memstream` for each."""

    base_url: str
    gateway_url: Optional[str] = None
    token: Optional[Token] = None
    api_key: Optional[str] = None
    kaos_agent: Optional[str] = None
    timeout: float = 30.0
    retry: Retry = field(default_factory=Retry)
    headers: Mapping[str, str] = field(default_factory=dict)

    def with_credentials(self, **credentials: Any) -> "Settings":
        # Another caller on the same server: none of this caller's credentials carry over.
        return replace(self, **{"token": None, "api_key": None, **credentials})

    def request_of(self, route: Route, call: Call[Any]) -> httpx.Request:
        base = (self.gateway_url or self.base_url) if route.served_by_gateway else self.base_url
        url = base.rstrip("/") + _fill(route.path, call.params or {})
        headers = {"accept": "text/event-stream" if route.stream else "application/json", **self.headers}
        token = self.token() if callable(self.token) else self.token
        if token:
            headers["authorization"] = f"Bearer {token}"
        if self.api_key:
            headers["x-api-key"] = self.api_key
        if route.family == "kaos" and self.kaos_agent:
            headers["x-kaos-agent"] = self.kaos_agent
        # A stream's timeout stops once it has started: the reads after that wait for events.
        timeout = httpx.Timeout(self.timeout, read=None) if route.stream else httpx.Timeout(self.timeout)
        extensions = {"timeout": timeout.as_dict()}
        query = {k: v for k, v in (call.query or {}).items() if v is not None}
        if isinstance(call.body, str):
            headers["content-type"] = "application/x-ndjson"
            return httpx.Request(route.method, url, params=query, headers=headers, content=call.body, extensions=extensions)
        body = {} if call.body is None else {"json": call.body}
        return httpx.Request(route.method, url, params=query, headers=headers, extensions=extensions, **body)


def _fill(template: str, params: Mapping[str, Any]) -> str:
    parts = template.split("{")
    out = [parts[0]]
    for part in parts[1:]:
        name, rest = part.split("}", 1)
        if params.get(name) is None:
            raise TypeError(f"missing path parameter {name} for {template}")
        out.append(quote(str(params[name]), safe="") + rest)
    return "".join(out)


def exchange(settings: Settings, route: Route, call: Call[Any]) -> Generator[Union[httpx.Request, float], Optional[Outcome], httpx.Response]:
    """Yields the request to send (and is sent back the response or the transport error), or the
    seconds to sleep; returns the successful response or raises the last error."""
    request = settings.request_of(route, call)
    idempotent = call.idempotent if call.idempotent is not None else route.method == "GET"
    attempt = 0
    while True:
        attempt += 1
        outcome = yield request
        if isinstance(outcome, httpx.Response) and outcome.is_success:
            return outcome
        error = _error_of(route, outcome, settings.timeout)
        delay = settings.retry.delay_after(attempt, error, idempotent)
        if delay is None:
            raise error
        yield delay


def _error_of(route: Route, outcome: Optional[Outcome], timeout: float) -> MemstreamError:
    if isinstance(outcome, httpx.Response):
        return error_from_answer(route.family, outcome.status_code, body_of(outcome), retry_after_of(outcome.headers.get("retry-after")))
    code = "TIMEOUT" if isinstance(outcome, httpx.TimeoutException) else "NETWORK_ERROR"
    message = f"no answer within {timeout} s" if code == "TIMEOUT" else str(outcome)
    return MemstreamError(status=0, family=route.family, code=code, message=f"{route.method} {route.path}: {message}")


def body_of(response: httpx.Response) -> Any:
    """The answer parsed: JSON, text, or None for 204."""
    if response.status_code == 204 or not response.content:
        return None
    if "json" in response.headers.get("content-type", ""):
        try:
            return response.json()
        except ValueError:
            return response.text
    return response.text


def advance(steps: Generator[Any, Any, httpx.Response], reply: Any) -> Tuple[Optional[httpx.Response], Any]:
    """One step of :func:`exchange`: (the response, None) once it is done, else (None, what to do)."""
    try:
        return None, steps.send(reply)
    except StopIteration as done:
        return done.value, None


class SyncTransport:
    def __init__(self, settings: Settings, http: httpx.Client) -> None:
        self.settings = settings
        self.http = http

    def _run(self, route: Route, call: Call[Any], stream: bool) -> httpx.Response:
        steps, reply = exchange(self.settings, route, call), None
        while True:
            done, step = advance(steps, reply)
            if done is not None:
                return done
            reply = time.sleep(step) if isinstance(step, float) else self._send(step, stream)  # type: ignore[func-returns-value]

    def _send(self, request: httpx.Request, stream: bool) -> Outcome:
        try:
            response = self.http.send(request, stream=stream)
        except httpx.TransportError as err:
            return err
        if stream and not response.is_success:
            response.read()  # the refusal's envelope, for the error
        return response

    def call(self, route: Route, call: Call[Any], parse: Callable[[Any], Any]) -> Any:
        return parse(body_of(self._run(route, call, False)))

    def stream(self, route: Route, call: Stream[Any]) -> Iterator[Any]:
        response = self._run(route, call, True)
        reader = StreamReader(call.decode)
        try:
            for text in response.iter_text():
                yield from reader.feed(text)
                if reader.ended:
                    return
        finally:
            response.close()


class AsyncTransport:
    def __init__(self, settings: Settings, http: httpx.AsyncClient) -> None:
        self.settings = settings
        self.http = http

    async def _run(self, route: Route, call: Call[Any], stream: bool) -> httpx.Response:
        steps, reply = exchange(self.settings, route, call), None
        while True:
            done, step = advance(steps, reply)
            if done is not None:
                return done
            reply = await (asyncio.sleep(step) if isinstance(step, float) else self._send(step, stream))

    async def _send(self, request: httpx.Request, stream: bool) -> Outcome:
        try:
            response = await self.http.send(request, stream=stream)
        except httpx.TransportError as err:
            return err
        if stream and not response.is_success:
            await response.aread()
        return response

    async def call(self, route: Route, call: Call[Any], parse: Callable[[Any], Any]) -> Any:
        return parse(body_of(await self._run(route, call, False)))

    async def stream(self, route: Route, call: Stream[Any]) -> AsyncIterator[Any]:
        response = await self._run(route, call, True)
        reader = StreamReader(call.decode)
        try:
            async for text in response.aiter_text():
                for event in reader.feed(text):
                    yield event
                if reader.ended:
                    return
        finally:
            await response.aclose()


__all__ = ["AsyncTransport", "Settings", "SyncTransport"]
