"""Server-Sent Events, parsed as text arrives (the same rules as @memstream/client's sse.ts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, List, Optional, Tuple, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class SseFrame:
    event: str
    data: str


def parse_frame(block: str) -> Optional[SseFrame]:
    event, data = "message", []
    for line in block.split("\n"):
        if line == "" or line.startswith(":"):
            continue  # heartbeats are comments
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
    return SseFrame(event, "\n".join(data)) if data else None


# What a stream's decoder makes of a frame: the event to hand out (None: nothing) and whether the stream ends.
Decoded = Tuple[Optional[T], bool]


class StreamReader(Generic[T]):
    """Turns text chunks into the stream's events; ``ended`` once the decoder saw the last frame."""

    def __init__(self, decode: Callable[[SseFrame], Decoded[T]]) -> None:
        self._decode = decode
        self._buffer = ""
        self.ended = False

    def feed(self, text: str) -> List[T]:
        self._buffer += text.replace("\r\n", "\n").replace("\r", "\n")
        events: List[T] = []
        while not self.ended and "\n\n" in self._buffer:
            block, self._buffer = self._buffer.split("\n\n", 1)
            frame = parse_frame(block)
            if frame is None:
                continue
            event, self.ended = self._decode(frame)
            if event is not None:
                events.append(event)
        return events
