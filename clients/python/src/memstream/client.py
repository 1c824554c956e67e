"""Memstream and AsyncMemstream: one server's APIs, one attribute per family."""

from __future__ import annotations

from typing import Any, Callable, Generic, Mapping, Optional, TypedDict, TypeVar, Union

import httpx
from typing_extensions import Self, Unpack

from ._operation import M, Async, Sync
from ._retry import NO_RETRY, Retry
from ._transport import AsyncTransport, Settings, SyncTransport, Token
from .families.admin import Admin
from .families.ark import Ark
from .families.evermemos import EverMemOs
from .families.kaos import Kaos
from .families.memory_agent import MemoryAgent
from .families.memory_service import MemoryService


class Options(TypedDict, total=False):
    gateway_url: str
    """The ingest gateway, for the distributed mode reached without the edge proxy: every family's
    writes go there, the reads to ``base_url`` (the read API). ``base_url`` when unset."""
    token: Token
    """A person's JWT (or an agent key, as a bearer token); a function is asked before every call, so a token can be refreshed."""
    api_key: str
    """An agent's key, sent as X-API-Key."""
    kaos_agent: str
    """KAOS: the agent whose memory the calls reach (X-KAOS-Agent); the server's KAOS_AGENT_NAME otherwise."""
    timeout: float
    """Seconds one attempt may take until its answer has arrived (a stream: until it starts). 30 by default."""
    retry: Union[Retry, bool]
    """Attempts on 429 and 503 (and on lost connections where a repeat is harmless); False tries once."""
    headers: Mapping[str, str]
    """Headers sent on every call."""


def _settings(base_url: str, options: Options) -> Settings:
    retry = options.get("retry", True)
    rule = retry if isinstance(retry, Retry) else (Retry() if retry else NO_RETRY)
    fields: Any = {k: v for k, v in options.items() if k != "retry"}
    return Settings(base_url=base_url, retry=rule, **fields)


H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class _Client(Generic[M, H]):
    """What both clients are: the families on a transport, and the settings and connections to
    make another caller's client from."""

    _http_type: Callable[[], H]
    _transport_type: Callable[[Settings, H], Any]

    def __init__(self, base_url: str, *, http_client: Optional[H] = None, **options: Unpack[Options]) -> None:
        self._setup(_settings(base_url, options), http_client)

    def _setup(self, settings: Settings, http_client: Optional[H]) -> None:
        self._owns_http = http_client is None
        self._http: H = http_client or self._http_type()
        self._settings = settings
        transport = self._transport_type(settings, self._http)
        self.evermemos: EverMemOs[M] = EverMemOs(transport)
        self.ark: Ark[M] = Ark(transport)
        self.memory_agent: MemoryAgent[M] = MemoryAgent(transport)
        self.memory_service: MemoryService[M] = MemoryService(transport)
        self.kaos: Kaos[M] = Kaos(transport)
        # memory-service's admin and auditor API; governance (erasure, export, import) joins it here.
        self.admin: Admin[M] = Admin(transport)

    def with_credentials(self, **credentials: Unpack[Options]) -> Self:
        """The same server as another caller, on the same connections (close the first client last)."""
        other = type(self).__new__(type(self))
        other._setup(self._settings.with_credentials(**credentials), self._http)
        return other


class Memstream(_Client[Sync, httpx.Client]):
    """A blocking client. Cheap to make: one per caller (credentials are the client's).

    >>> with Memstream("http://localhost:8080", api_key="...") as ms:
    ...     ms.evermemos.list({"group_id": "team"})
    """

    _http_type = httpx.Client
    _transport_type = SyncTransport

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Memstream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class AsyncMemstream(_Client[Async, httpx.AsyncClient]):
    """The asyncio client: the same families and methods as :class:`Memstream`, each awaited
    (streams are async iterators)."""

    _http_type = httpx.AsyncClient
    _transport_type = AsyncTransport

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncMemstream":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()
