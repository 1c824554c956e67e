"""Every operation the client calls, with the models of its path, query, headers and body.

This table is the client's whole knowledge of the HTTP surface; tests/test_openapi_agreement.py
compares it with openapi.json operation by operation, and each family method names its route.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional, Type

from pydantic import BaseModel

from .errors import Family
from .models import admin as ad
from .models import ark as a
from .models import evermemos as e
from .models import kaos as k
from .models import memory_agent as ma
from .models import memory_service as ms


@dataclass(frozen=True)
class Route:
    family: Family
    method: Literal["GET", "POST", "PATCH", "DELETE"]
    path: str  # with {name} placeholders, as OpenAPI writes them
    params: Optional[Type[BaseModel]] = None
    query: Optional[Type[BaseModel]] = None
    headers: Optional[Type[BaseModel]] = None
    body: Optional[Type[BaseModel]] = None
    # "list": the body is a list of `body` (or one); "ndjson": newline-delimited `body`s.
    body_form: Literal["object", "list", "ndjson"] = "object"
    # Served by the ingest gateway in the distributed mode: every write (a call that publishes or
    # changes state). None: a GET reads and any other method writes; the POST searches say False.
    gateway: Optional[bool] = None
    stream: bool = False  # answers Server-Sent Events

    @property
    def served_by_gateway(self) -> bool:
        """Whether the ingest gateway serves the route; the read API serves the rest."""
        return self.gateway if self.gateway is not None else self.method != "GET"


def _evermemos(method: str, path: str, **parts: object) -> Route:
    return Route("evermemos", method, path, **parts)  # type: ignore[arg-type]


class EverMemOsRoutes:
    write_memory = _evermemos("POST", "/api/v1/memories", query=e.SyncModeQuery, body=e.GroupChatMessage)
    list_memories = _evermemos("GET", "/api/v1/memories", query=e.ListMemoriesQuery)
    # the filters go in a JSON body, the document's form (the server also reads them from the query)
    delete_memories = _evermemos("DELETE", "/api/v1/memories", query=e.DeleteMemoriesFilter, body=e.DeleteMemoriesFilter)
    upsert_meta = _evermemos("POST", "/api/v1/memories/conversation-meta", query=e.SyncModeQuery, body=e.ConversationMeta)
    patch_meta = _evermemos("PATCH", "/api/v1/memories/conversation-meta", query=e.SyncModeQuery, body=e.ConversationMetaPatch)
    get_meta = _evermemos("GET", "/api/v1/memories/conversation-meta", query=e.ConversationMetaQuery)
    search_by_query = _evermemos("GET", "/api/v1/memories/search", query=e.SearchMemoriesRequest)
    search = _evermemos("POST", "/api/v1/memories/search", body=e.SearchMemoriesPost, gateway=False)
    flush = _evermemos("POST", "/api/v1/memories/flush", body=e.FlushMemoriesRequest)
    memory_stats = _evermemos("GET", "/api/v1/stats/memory", query=e.GroupQuery)
    request_status = _evermemos("GET", "/api/v1/stats/request", query=e.RequestStatusQuery)


class MemoryAgentRoutes:
    summaries = Route("memory-agent", "GET", "/api/v1/summaries", query=ma.SummariesQuery)
    context = Route("memory-agent", "GET", "/api/v1/context", query=ma.ContextQuery)


def _ark(method: str, path: str, **parts: object) -> Route:
    return Route("ark", method, path, **parts)  # type: ignore[arg-type]


class ArkRoutes:
    post_messages = _ark("POST", "/messages", body=a.ArkMessageBatch)
    list_messages = _ark("GET", "/messages", query=a.ArkListQuery)
    purge_messages = _ark("DELETE", "/messages", query=a.ArkPurgeQuery)
    sessions = _ark("GET", "/sessions")
    stream = _ark("GET", "/stream/{session_id}", params=a.ArkSessionParams, query=a.ArkStreamQuery, stream=True)
    relay_chunks = _ark("POST", "/stream/{session_id}", params=a.ArkSessionParams, body=a.ArkChunk, body_form="ndjson")
    complete_session = _ark("POST", "/session/{session_id}/complete", params=a.ArkSessionParams)
    complete_stream = _ark("POST", "/stream/{session_id}/complete", params=a.ArkSessionParams)
    stream_statistics = _ark("GET", "/stream-statistics")
    purge_streams = _ark("DELETE", "/stream")


def _ms(method: str, path: str, **parts: object) -> Route:
    return Route("memory-service", method, path, **parts)  # type: ignore[arg-type]


class ConversationRoutes:
    """What both memory-service layouts serve alike, under their own base path."""

    def __init__(self, base: str) -> None:
        one = f"{base}/{{conversationId}}"
        cid = ms.ConversationIdParams
        self.create = _ms("POST", base, body=ms.CreateConversationRequest)
        self.list = _ms("GET", base, query=ms.ListConversationsQuery)
        self.get = _ms("GET", one, params=cid)
        self.delete = _ms("DELETE", one, params=cid)
        self.memberships = _ms("GET", f"{one}/memberships", params=cid)
        self.share = _ms("POST", f"{one}/memberships", params=cid, body=ms.ShareRequest)
        self.update_membership = _ms("PATCH", f"{one}/memberships/{{userId}}", params=ms.MemberParams, body=ms.UpdateMembershipRequest)
        self.revoke_membership = _ms("DELETE", f"{one}/memberships/{{userId}}", params=ms.MemberParams)
        self.transfer_ownership = _ms("POST", f"{one}/transfer-ownership", params=cid, body=ms.TransferOwnershipRequest)
        self.pending_transfer = _ms("GET", f"{one}/transfer-ownership", params=cid)
        self.accept_transfer = _ms("POST", f"{one}/transfer-ownership/accept", params=cid)
        self.decline_transfer = _ms("POST", f"{one}/transfer-ownership/decline", params=cid)
        self.forks = _ms("GET", f"{one}/forks", params=cid)
        self.list_messages = _ms("GET", f"{one}/messages", params=cid, query=ms.UserMessagesQuery)
        self.fork = _ms("POST", f"{one}/messages/{{messageId}}/fork", params=ms.MessageIdParams, body=ms.ForkRequest)


class UserRoutes(ConversationRoutes):
    """The design document's layout: people under /v1/user."""

    def __init__(self) -> None:
        super().__init__("/v1/user/conversations")
        self.append_message = _ms("POST", "/v1/user/conversations/{conversationId}/messages", params=ms.ConversationIdParams, body=ms.CreateUserMessageRequest)
        self.search = _ms("POST", "/v1/user/search/messages", body=ms.SearchMessagesRequest, gateway=False)


class CodeRoutes(ConversationRoutes):
    """The January 2026 code's layout, which the service's generated clients call."""

    def __init__(self) -> None:
        base = "/v1/conversations"
        one = f"{base}/{{conversationId}}"
        cid = ms.ConversationIdParams
        super().__init__(base)
        self.list_messages = _ms("GET", f"{one}/messages", params=cid, query=ms.ListMessagesQuery)
        self.fork = _ms("POST", f"{one}/messages/{{messageId}}/fork", params=ms.MessageIdParams, body=ms.CodeForkRequest)
        self.append_message = _ms("POST", f"{one}/messages", params=cid, body=ms.CreateMessageRequest)
        # The service's own route for ending an offer, by the transfer's id (either layout's offer).
        self.end_transfer = _ms("DELETE", "/v1/ownership-transfers/{transferId}", params=ms.TransferIdParams)
        # The service's later transfer API: offers to members, by their own id.
        offers = "/v1/ownership-transfers"
        self.offer_ownership = _ms("POST", offers, body=ms.CreateOwnershipTransferRequest)
        self.ownership_offers = _ms("GET", offers, query=ms.ListOwnershipTransfersQuery)
        self.ownership_offer = _ms("GET", f"{offers}/{{transferId}}", params=ms.TransferIdParams)
        self.accept_ownership_offer = _ms("POST", f"{offers}/{{transferId}}/accept", params=ms.TransferIdParams)
        self.share_at_forks = _ms("POST", f"{one}/forks", params=cid, body=ms.ShareRequest)
        self.create_summary = _ms("POST", f"{one}/summaries", params=cid, body=ms.CreateSummaryRequest)
        self.sync_memory = _ms("POST", f"{one}/memory/messages/sync", params=cid, body=ms.SyncMessagesRequest)
        self.record_response = _ms("POST", f"{one}/response", params=cid, body=ms.RecordResponseRequest)
        self.follow_response = _ms("GET", f"{one}/response", params=cid, stream=True)
        self.cancel_response = _ms("POST", f"{one}/cancel-response", params=cid)


_AGENT = "/v1/agent/conversations/{conversationId}"


class AgentRoutes:
    append_messages = _ms("POST", f"{_AGENT}/messages", params=ms.ConversationIdParams, body=ms.CreateAgentMessagesRequest)
    create_summary = _ms("POST", f"{_AGENT}/summaries", params=ms.ConversationIdParams, body=ms.CreateSummaryRequest)
    context = _ms("GET", f"{_AGENT}/context", params=ms.ConversationIdParams, query=ms.ContextQuery)


_SESSION = "/memory/sessions/{sessionId}"


def _kaos(method: str, path: str, **parts: object) -> Route:
    # The limits' headers count where sessions and events are made; every other route documents the agent alone.
    headers = k.KaosHeaders if method == "POST" and path != "/memory/cleanup" else k.KaosAgentHeaders
    return Route("kaos", method, path, headers=headers, **parts)  # type: ignore[arg-type]


class KaosRoutes:
    create_session = _kaos("POST", "/memory/sessions", body=k.KaosCreateSessionRequest)
    list_sessions = _kaos("GET", "/memory/sessions", query=k.KaosListSessionsQuery)
    get_session = _kaos("GET", _SESSION, params=k.KaosSessionParams)
    delete_session = _kaos("DELETE", _SESSION, params=k.KaosSessionParams)
    add_events = _kaos("POST", f"{_SESSION}/events", params=k.KaosSessionParams, body=k.KaosNewEvent, body_form="list")
    session_events = _kaos("GET", f"{_SESSION}/events", params=k.KaosSessionParams, query=k.KaosSessionEventsQuery)
    context = _kaos("GET", f"{_SESSION}/context", params=k.KaosSessionParams, query=k.KaosContextQuery)
    events = _kaos("GET", "/memory/events", query=k.KaosEventsQuery)
    cleanup = _kaos("POST", "/memory/cleanup", body=k.KaosCleanupRequest)
    stats = _kaos("GET", "/memory/stats")


_ADMIN = "/v1/admin/conversations/{id}"


class AdminRoutes:
    """memory-service's admin and auditor API, and the audit log read."""

    list_conversations = _ms("GET", "/v1/admin/conversations", query=ad.AdminListConversationsQuery)
    get_conversation = _ms("GET", _ADMIN, params=ad.AdminConversationParams, query=ad.AdminGetConversationQuery)
    delete_conversation = _ms("DELETE", _ADMIN, params=ad.AdminConversationParams, body=ad.AdminActionRequest)
    restore_conversation = _ms("POST", f"{_ADMIN}/restore", params=ad.AdminConversationParams, body=ad.AdminActionRequest)
    messages = _ms("GET", f"{_ADMIN}/messages", params=ad.AdminConversationParams, query=ad.AdminMessagesQuery)
    memberships = _ms("GET", f"{_ADMIN}/memberships", params=ad.AdminConversationParams, query=ad.AdminGetConversationQuery)
    search = _ms(
        "POST", "/v1/admin/search/messages", query=ad.JustificationQuery, body=ad.AdminSearchRequest, gateway=False
    )
    evict = _ms("POST", "/v1/admin/evict", query=ad.EvictQuery, body=ad.EvictRequest)
    eviction_job = _ms("GET", "/v1/admin/evict/jobs/{jobId}", params=ad.EvictionJobParams)
    audit_log = _ms("GET", "/v1/admin/audit", query=ad.AuditLogQuery)
    erase = _ms("POST", "/v1/admin/erasures", body=ad.ErasureRequest)
    erasure = _ms("GET", "/v1/admin/erasures/{id}", params=ad.ErasureParams)
    erasures = _ms("GET", "/v1/admin/erasures", query=ad.ErasureListQuery)
    roles = _ms("GET", "/v1/admin/roles")
    erase_me = _ms("POST", "/v1/me/erasure", body=ad.MyErasureRequest)
    my_erasure = _ms("GET", "/v1/me/erasures/{id}", params=ad.ErasureParams)
    export_data = _ms("GET", "/v1/admin/exports", query=ad.ExportQuery)
    export_own_data = _ms("GET", "/v1/me/export")
    import_data = _ms("POST", "/v1/admin/imports", query=ad.ImportQuery, body=ad.ExportRecord, body_form="ndjson")
    dead_letters = _ms("GET", "/v1/admin/dead-letters", query=ad.DeadLetterQuery)
    conversations_across = _ms("GET", "/v1/console/conversations", query=ad.ConsoleConversationsQuery)
    pipeline_lag = _ms("GET", "/v1/console/pipeline")


USER = UserRoutes()
CODE = CodeRoutes()
