"""memory-service's admin and auditor API, and memstream's audit log read. camelCase on the wire."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from pydantic import Field

from ._base import Answer, CamelAnswer, CamelRequest, Request
from .memory_service import AccessLevel

Flag = Literal["true", "false"]
ResourceType = Literal["conversation_groups", "conversation_memberships"]


class AdminConversationParams(Request):
    id: str


class EvictionJobParams(CamelRequest):
    job_id: str


class ErasureParams(Request):
    id: str


class ErasureListQuery(CamelRequest):
    user_id: Optional[str] = None
    limit: Optional[int] = None


class ErasureRequest(CamelRequest):
    user_id: str
    justification: str


class MyErasureRequest(CamelRequest):
    justification: Optional[str] = None


class AdminListConversationsQuery(CamelRequest):
    user_id: Optional[str] = None
    include_deleted: Optional[Flag] = None
    only_deleted: Optional[Flag] = None
    deleted_after: Optional[str] = None
    deleted_before: Optional[str] = None
    after: Optional[str] = None
    limit: Optional[int] = None
    justification: Optional[str] = None


class AdminGetConversationQuery(CamelRequest):
    include_deleted: Optional[Flag] = None
    justification: Optional[str] = None


class AdminMessagesQuery(CamelRequest):
    after: Optional[str] = None
    limit: Optional[int] = None
    channel: Optional[str] = None
    include_deleted: Optional[Flag] = None
    justification: Optional[str] = None


class JustificationQuery(CamelRequest):
    justification: Optional[str] = None


class EvictQuery(Request):
    run_async: Optional[Flag] = Field(default=None, alias="async")


class AdminActionRequest(CamelRequest):
    justification: Optional[str] = None


class AdminSearchRequest(CamelRequest):
    query: str
    top_k: Optional[int] = None
    conversation_ids: Optional[List[str]] = None
    user_id: Optional[str] = None
    before: Optional[str] = None
    include_deleted: Optional[bool] = None


class EvictRequest(CamelRequest):
    retention_period: str
    resource_types: List[ResourceType]
    justification: Optional[str] = None


class AuditLogQuery(CamelRequest):
    after: Optional[int] = None
    limit: Optional[int] = None
    actor_id: Optional[str] = None
    action: Optional[str] = None
    target: Optional[str] = None
    since: Optional[str] = None
    until: Optional[str] = None


class AdminConversationSummary(CamelAnswer):
    id: str
    title: Optional[str]
    owner_user_id: Optional[str] = None
    created_at: str
    updated_at: str
    deleted_at: Optional[str]
    last_message_preview: Optional[str]


class AdminConversation(AdminConversationSummary):
    forked_at_message_id: Optional[str]
    forked_at_conversation_id: Optional[str]


class AdminChangeAccepted(CamelAnswer):
    """202: an admin's delete or restore is published, and the converter had not applied it when
    the server's wait ended; it will be."""

    status: Literal["accepted"]
    id: str
    request_id: str


class AdminConversations(CamelAnswer):
    data: List[AdminConversationSummary]


class AdminMessage(CamelAnswer):
    id: str
    conversation_id: str
    user_id: Optional[str] = None
    # Answers name the channel in lower case, one of the three (requests take any case).
    channel: Literal["history", "memory", "summary"]
    epoch: Optional[int] = None
    content: List[Any]
    created_at: str


class AdminMessages(CamelAnswer):
    data: List[AdminMessage]
    next_cursor: Optional[str]


class AdminMembership(CamelAnswer):
    conversation_id: str
    user_id: str
    access_level: AccessLevel
    created_at: str


class AdminMemberships(CamelAnswer):
    data: List[AdminMembership]


class AdminSearchHit(CamelAnswer):
    message: AdminMessage
    score: float
    highlights: Optional[str]


class AdminSearchResults(CamelAnswer):
    data: List[AdminSearchHit]


class EvictionJob(CamelAnswer):
    job_id: str
    status: Literal["PENDING", "RUNNING", "COMPLETED", "FAILED"]
    progress: int
    created_at: str
    completed_at: Optional[str] = None
    error: Optional[str] = None
    counts: Dict[str, int]


ErasureStatus = Literal["pending", "running", "completed", "failed"]


class ErasureAccepted(CamelAnswer):
    id: str
    status: ErasureStatus


class StoreCounts(CamelAnswer):
    postgres: Dict[str, int]
    redis: Dict[str, int]
    # records removed from the transport, per topic name
    kafka: Dict[str, int]


class ErasureCounts(CamelAnswer):
    evermemos: StoreCounts
    memory_service: StoreCounts = Field(alias="memory-service")
    kaos: StoreCounts
    memory_agent: StoreCounts = Field(alias="memory-agent")
    ark: StoreCounts


class ErasureReceipt(CamelAnswer):
    """What an erasure removed or rewrote, per family and per store, and when."""

    id: str
    user_id: str
    status: ErasureStatus
    requested_by: str
    self_: bool = Field(alias="self")
    requested_at: str
    started_at: Optional[str]
    completed_at: Optional[str]
    step: str
    passes: int
    error: Optional[str]
    # why the job has not finished yet, or why it failed (what a pass found, or the step it stopped in)
    reason: Optional[str]
    counts: ErasureCounts


class ErasureList(CamelAnswer):
    data: List[ErasureReceipt]


class CallerRoles(CamelAnswer):
    roles: List[Literal["admin", "auditor"]]


class AuditEntry(CamelAnswer):
    id: int
    occurred_at: str
    actor_kind: Literal["user", "agent", "local", "system"]
    actor_id: str
    role: Optional[Literal["admin", "auditor"]]
    action: str
    target: Optional[str]
    justification: Optional[str]
    status: int
    params: Dict[str, Any]
    counts: Dict[str, int]


class AuditLog(CamelAnswer):
    data: List[AuditEntry]
    next_cursor: Optional[str]


class ExportQuery(CamelRequest):
    user_id: Optional[str] = None
    justification: Optional[str] = None


class ImportQuery(CamelRequest):
    justification: Optional[str] = None


class ExportRecord(Answer):
    """One record of an export (docs/export-import.md), kept as given: its ``kind`` says which."""


class ImportRefusalDetails(Answer):
    resource: Literal["conversation"]
    id: str
    records: Dict[str, int]


class ImportRefusal(Answer):
    """A conversation whose records an import refused (it did not create it), in the admin API's error shape."""

    error: str
    code: Literal["conflict"]
    details: ImportRefusalDetails


class ImportResult(CamelAnswer):
    lines: int
    imported: Dict[str, int]
    already_present: Dict[str, int]
    refused: Dict[str, int]
    refused_conversations: List[ImportRefusal]
    refused_conversation_count: int


DeadLetterTopic = Literal[
    "ingest.group-chat.v1.dlq",
    "ingest.ark-messages.v1.dlq",
    "ingest.conversations.v1.dlq",
    "conversation.message-stored.v1.dlq",
    "memory.episodic-extracted.v1.dlq",
    "governance.erasures.v1.dlq",
]


class DeadLetterQuery(CamelRequest):
    topic: Optional[DeadLetterTopic] = None
    limit: Optional[int] = None


class DeadLetterRecord(CamelAnswer):
    """A record a consumer gave up on, as it was sent, with why (auditors and admins only)."""

    partition: int
    offset: str
    key: Optional[str]
    reason: Optional[str]
    code: Optional[str]
    attempts: Optional[int]
    source_topic: Optional[str]
    source_partition: Optional[int]
    source_offset: Optional[str]
    consumer_group: Optional[str]
    correlation_id: Optional[str]
    value: str
    value_bytes: int


class DeadLetterTopicRecords(CamelAnswer):
    topic: str
    retained: int
    records: List[DeadLetterRecord]


class DeadLetters(CamelAnswer):
    value_limit: int
    data: List[DeadLetterTopicRecords]


ConsoleFamily = Literal["evermemos", "ark", "memory-service", "kaos", "memory-agent"]


class ConsoleConversationsQuery(CamelRequest):
    family: Optional[ConsoleFamily] = None
    group: Optional[str] = None
    person: Optional[str] = None
    from_: Optional[str] = Field(default=None, alias="from")
    to: Optional[str] = None
    cursor: Optional[str] = None
    limit: Optional[int] = None


class ConsoleSession(CamelAnswer):
    agent: str
    session_id: str
    user_id: str


class ConsoleConversation(CamelAnswer):
    id: str
    family: ConsoleFamily
    group_id: str
    title: Optional[str]
    owner: Optional[str]
    forked_from: Optional[str]
    session: Optional[ConsoleSession]
    summaries: int
    created_at: str
    last_activity: str


class ConsoleConversations(CamelAnswer):
    data: List[ConsoleConversation]
    next_cursor: Optional[str]


class PartitionLag(CamelAnswer):
    partition: int
    end: int
    committed: Optional[int]
    lag: int


class GroupLag(CamelAnswer):
    """How far one consumer group is behind on one topic, from the bus's own offsets."""

    group: str
    topic: str
    lag: int
    partitions: List[PartitionLag]


class PipelineLag(CamelAnswer):
    data: List[GroupLag]
