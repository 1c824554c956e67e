"""ARK's Memory API."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Mapping, Optional, Union

from .._operation import Call, Family, M, Stream, dump, operation, stream_operation
from .._sse import Decoded, SseFrame
from ..errors import MemstreamError
from ..models import ark as a
from ..routes import ArkRoutes as R


def _session(session_id: str) -> Dict[str, Any]:
    return dump(a.ArkSessionParams, {"session_id": session_id})


def decode_ark_frame(frame: SseFrame) -> Decoded[a.ArkStreamEvent]:
    if frame.event == "error":
        # The stream's own refusal (no such session, after the wait) arrives as a frame, the status being sent already.
        raise MemstreamError(status=404, family="ark", code="RESOURCE_NOT_FOUND", message=_error_text(frame.data), body=frame.data)
    if frame.data == "[DONE]":
        return None, True
    if frame.data == "[LIVE_MODE]":
        return a.ArkLive(), False
    if frame.data == "[STREAM_END]":
        return a.ArkEnd(), False
    return a.ArkChunkEvent(json.loads(frame.data)), False


class Ark(Family[M]):
    """Message batches, sessions, and their streams of chat.completion.chunk objects."""

    @operation(R.post_messages)
    def post_messages(self, batch: Union[a.ArkMessageBatch, Mapping[str, Any]]) -> Call[Union[a.ArkStored, a.ArkStoring]]:
        """Stores a batch of OpenAI chat messages whole and in order."""
        return Call(body=dump(a.ArkMessageBatch, batch))

    @operation(R.list_messages)
    def list_messages(self, query: Union[a.ArkListQuery, Mapping[str, Any], None] = None) -> Call[a.ArkPage]:
        return Call(query=dump(a.ArkListQuery, query))

    @operation(R.purge_messages)
    def purge_messages(self, query: Union[a.ArkPurgeQuery, Mapping[str, Any], None] = None) -> Call[Union[a.ArkPurged, a.ArkPurging]]:
        """Purges the stored messages of one session, or of every ARK session the caller may manage."""
        return Call(query=dump(a.ArkPurgeQuery, query))

    @operation(R.sessions)
    def sessions(self) -> Call[a.ArkSessions]:
        return Call()

    @operation(R.relay_chunks)
    def relay_chunks(self, session_id: str, chunks: Iterable[Mapping[str, Any]]) -> Call[Union[a.ArkRelayed, a.ArkRelaying]]:
        """Relays token chunks to the session's readers (and keeps them for replay)."""
        # Newline-delimited JSON is the relay's native form (ARK agents post it that way).
        ndjson = "\n".join(json.dumps(dump(a.ArkChunk, c)) for c in chunks)
        return Call(params=_session(session_id), body=ndjson)

    @operation(R.complete_session)
    def complete_session(self, session_id: str) -> Call[Union[a.ArkCompleted, a.ArkCompleting]]:
        # Completing twice answers already_completed: a repeat is harmless.
        return Call(params=_session(session_id), idempotent=True)

    @operation(R.complete_stream)
    def complete_stream(self, session_id: str) -> Call[Union[a.ArkCompleted, a.ArkCompleting]]:
        return Call(params=_session(session_id), idempotent=True)

    @operation(R.stream_statistics)
    def stream_statistics(self) -> Call[a.ArkStreamStatistics]:
        """Chunk counts and completion of every relayed stream the caller may read."""
        return Call()

    @operation(R.purge_streams)
    def purge_streams(self) -> Call[Union[a.ArkStreamsPurged, a.ArkStreamsPurging]]:
        """Forgets the relayed chunks and completion of every stream the caller manages."""
        return Call()

    @stream_operation(R.stream)
    def stream(self, session_id: str, *, from_beginning: bool = False, wait_for_session: Optional[str] = None) -> Stream[a.ArkStreamEvent]:
        """The session's events as they come; the iterator ends when the session is completed, and
        closing it (leaving the loop) closes the connection. ``wait_for_session``: how long (a Go
        duration: 500ms, 30s, 5m) to wait for a session that does not exist yet."""
        query: Dict[str, str] = {}
        if from_beginning:
            query["from-beginning"] = "true"
        if wait_for_session:
            query.update({"wait-for-session": "true", "timeout": wait_for_session})
        return Stream(params=_session(session_id), query=dump(a.ArkStreamQuery, query), decode=decode_ark_frame)


def _error_text(data: str) -> str:
    try:
        parsed = json.loads(data)
    except ValueError:
        return data
    return parsed["error"] if isinstance(parsed, dict) and isinstance(parsed.get("error"), str) else data


__all__ = ["Ark"]
