"""Each family's methods are written once and run by either client.

A method builds a :class:`Call` (what to send); the descriptor it is wrapped in hands that to the
client's transport, which sends it and parses the answer into the type the method's annotation
names. The transport is a blocking one in :class:`~memstream.Memstream` and an asyncio one in
:class:`~memstream.AsyncMemstream`, and the overloads of ``__get__`` tell a type checker which: a
method answers ``T`` on a ``Family[Sync]`` and ``Awaitable[T]`` on a ``Family[Async]``.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable, Concatenate, Dict, Generic, Iterator, Mapping, Optional, ParamSpec, Protocol, Type, TypeVar, Union, overload

from pydantic import BaseModel, TypeAdapter

from ._sse import Decoded, SseFrame
from .routes import Route

P = ParamSpec("P")
T = TypeVar("T")
M = TypeVar("M", bound="Mode")


class Mode:
    """Which transport a family runs on; only its two subclasses are used."""


class Sync(Mode):
    pass


class Async(Mode):
    pass


@dataclass(frozen=True)
class Call(Generic[T]):
    """What one call sends, in wire form. ``idempotent``: a repeat cannot do the work twice (a read,
    or a write carrying the caller's own id), so a connection lost before the answer, or a 503 that
    may have reached the broker, is tried again; None means "when it is a GET"."""

    params: Optional[Mapping[str, Any]] = None
    query: Optional[Mapping[str, Any]] = None
    body: Any = None
    idempotent: Optional[bool] = None


@dataclass(frozen=True)
class Stream(Call[T]):
    """A call answered with Server-Sent Events, each frame decoded into an event or ending the stream."""

    decode: Callable[[SseFrame], Decoded[T]] = lambda frame: (None, False)


class Transport(Protocol):
    def call(self, route: Route, call: Call[Any], parse: Callable[[Any], Any]) -> Any: ...

    def stream(self, route: Route, call: Stream[Any]) -> Any: ...


class Family(Generic[M]):
    """One API family's methods, bound to a client's transport."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport


def dump(model: Type[BaseModel], value: Any, **fixed: Any) -> Dict[str, Any]:
    """A request part in wire form: a model or a mapping, checked against the route's model.
    Fields left unset stay unsent, so the server applies its own defaults."""
    checked = value if isinstance(value, model) else model.model_validate({**(value or {}), **fixed})
    return checked.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Operation(Generic[P, T]):
    """A family method that answers one parsed value."""

    def __init__(self, route: Union[Route, str], build: Callable[..., Call[T]]) -> None:
        self._route = route
        self.build = build
        functools.update_wrapper(self, build)  # type: ignore[arg-type]

    def route_for(self, owner: type) -> Route:
        """The route, or for a method shared by layouts (a name), the owner's ``routes`` entry of that name."""
        return self._route if isinstance(self._route, Route) else getattr(owner.routes, self._route)  # type: ignore[attr-defined]

    @functools.cached_property
    def answer_type(self) -> Any:
        """``T`` of the method's ``-> Call[T]`` annotation: what the answer is parsed into."""
        hint = typing.get_type_hints(self.build)["return"]
        return typing.get_args(hint)[0]

    @functools.cached_property
    def parse(self) -> Callable[[Any], Any]:
        return TypeAdapter(self.answer_type).validate_python

    @overload
    def __get__(self, obj: None, owner: Any) -> "Operation[P, T]": ...
    @overload
    def __get__(self, obj: Family[Sync], owner: Any) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: Family[Async], owner: Any) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, obj: Optional[Family[Any]], owner: Any) -> Any:
        if obj is None:
            return self
        return functools.partial(_send, self, obj)


class StreamOperation(Operation[P, T]):
    """A family method that answers a stream: an iterator of events, async on the async client."""

    build: Callable[..., Stream[T]]

    # Only what a type checker sees differs from Operation (listed the other way round, most specific first).
    @overload  # type: ignore[override]
    def __get__(self, obj: Family[Async], owner: Any) -> Callable[P, AsyncIterator[T]]: ...
    @overload
    def __get__(self, obj: Family[Sync], owner: Any) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, obj: None, owner: Any) -> "StreamOperation[P, T]": ...
    def __get__(self, obj: Optional[Family[Any]], owner: Any) -> Any:
        return self if obj is None else functools.partial(_open, self, obj)


def _send(op: Operation[Any, Any], family: Family[Any], *args: Any, **kwargs: Any) -> Any:
    return family._transport.call(op.route_for(type(family)), op.build(family, *args, **kwargs), op.parse)


def _open(op: StreamOperation[Any, Any], family: Family[Any], *args: Any, **kwargs: Any) -> Any:
    return family._transport.stream(op.route_for(type(family)), op.build(family, *args, **kwargs))


def operation(route: Union[Route, str]) -> Callable[[Callable[Concatenate[Any, P], Call[T]]], Operation[P, T]]:
    return lambda build: Operation(route, build)


def stream_operation(route: Union[Route, str]) -> Callable[[Callable[Concatenate[Any, P], Stream[T]]], StreamOperation[P, T]]:
    return lambda build: StreamOperation(route, build)
