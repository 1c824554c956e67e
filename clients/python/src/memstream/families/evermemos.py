"""EverMemOS group-chat memory."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Union

from .._operation import Call, Family, M, dump, operation
from ..models import evermemos as e
from ..routes import EverMemOsRoutes as R

MessageIn = Union[e.GroupChatMessage, Mapping[str, Any]]


def _sync_query(sync: bool) -> Dict[str, str]:
    return {} if sync else {"sync_mode": "false"}


class EverMemOs(Family[M]):
    """Writes carry the writer's own ids (``message_id``, ``group_id``), which the server stores
    once, so they are tried again after a lost connection without storing anything twice."""

    @operation(R.write_memory)
    def write(self, message: MessageIn, *, sync: bool = True) -> Call[e.WriteAnswer]:
        """Stores one message; answers once it is stored, or :class:`Accepted` (202) past the sync wait or with ``sync=False``."""
        return Call(query=_sync_query(sync), body=dump(e.GroupChatMessage, message), idempotent=True)

    @operation(R.list_memories)
    def list(self, query: Union[e.ListMemoriesQuery, Mapping[str, Any]]) -> Call[e.EverMemOsAnswer[e.MemoryPage]]:
        """A group's (or a user's) messages or episodic memories, newest first."""
        return Call(query=dump(e.ListMemoriesQuery, query))

    @operation(R.search)
    def search(self, request: Union[e.SearchMemoriesPost, Mapping[str, Any]]) -> Call[e.EverMemOsAnswer[e.SearchResult]]:
        """Keyword, vector, hybrid or rrf search over messages and episodic memories; ``explain=True``
        gives each hit its ``score_parts``."""
        # A search changes nothing: safe to repeat after a lost connection.
        return Call(body=dump(e.SearchMemoriesPost, request), idempotent=True)

    @operation(R.search_by_query)
    def search_by_query(
        self, request: Union[e.SearchMemoriesRequest, Mapping[str, Any]]
    ) -> Call[e.EverMemOsAnswer[e.GroupedSearchResult]]:
        """The same search as a GET, for caches and links, answered as EverMemOS answers it: grouped by group."""
        return Call(query=dump(e.SearchMemoriesRequest, request))

    @operation(R.delete_memories)
    def delete(self, filter: Union[e.DeleteMemoriesFilter, Mapping[str, Any]]) -> Call[e.DeleteAnswer]:
        """Forgets the messages matching every filter given, and what was made from them."""
        return Call(body=dump(e.DeleteMemoriesFilter, filter))

    @operation(R.flush)
    def flush(self, group_id: str, *, sync: bool = True) -> Call[e.FlushAnswer]:
        """Closes the group's open episode and waits for its memories (``sync=False`` does not wait)."""
        body = {"group_id": group_id} if sync else {"group_id": group_id, "sync_mode": False}
        return Call(body=dump(e.FlushMemoriesRequest, body), idempotent=True)

    @operation(R.upsert_meta)
    def upsert_conversation_meta(self, meta: Union[e.ConversationMeta, Mapping[str, Any]], *, sync: bool = True) -> Call[e.MetaAnswer]:
        """Creates or wholly replaces a group's metadata (keyed by its ``group_id``: a repeat is harmless).

        Without ``group_id`` (or with None) it sets the default config instead: what a group without
        metadata of its own falls back to.
        """
        return Call(query=_sync_query(sync), body=dump(e.ConversationMeta, meta), idempotent=True)

    @operation(R.patch_meta)
    def patch_conversation_meta(self, patch: Union[e.ConversationMetaPatch, Mapping[str, Any]], *, sync: bool = True) -> Call[e.MetaAnswer]:
        """Changes some of a group's metadata (without ``group_id``, the default config's); setting the same fields twice leaves them as once."""
        return Call(query=_sync_query(sync), body=dump(e.ConversationMetaPatch, patch), idempotent=True)

    @operation(R.get_meta)
    def get_conversation_meta(self, group_id: Optional[str] = None) -> Call[e.EverMemOsAnswer[Dict[str, Any]]]:
        """A group's metadata, or the default config when it has none (``is_default``); without a group, the default config."""
        return Call(query=dump(e.ConversationMetaQuery, {} if group_id is None else {"group_id": group_id}))

    @operation(R.memory_stats)
    def memory_stats(self, group_id: str) -> Call[e.EverMemOsAnswer[e.MemoryStats]]:
        """How far memory formation got for a group."""
        return Call(query=dump(e.GroupQuery, {"group_id": group_id}))

    @operation(R.request_status)
    def request_status(self, request_id: str) -> Call[e.EverMemOsAnswer[e.RequestStatus]]:
        """Where a write is: accepted, stored, extracted or failed."""
        return Call(query=dump(e.RequestStatusQuery, {"request_id": request_id}))


def is_accepted(answer: Union[e.WriteAnswer, e.MetaAnswer, e.DeleteAnswer, e.FlushAnswer]) -> bool:
    """True when a write answered 202: Kafka has it, the store not yet."""
    return isinstance(answer, e.Accepted)


__all__ = ["EverMemOs", "is_accepted"]
