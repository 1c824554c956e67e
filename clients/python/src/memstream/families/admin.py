"""memory-service's admin and auditor API: every person's conversations, search across everyone,
eviction, and the audit log. A caller needs the admin or auditor role (others get 403); a
``justification`` goes to the audit log with the call."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Mapping, Optional, Union

from .._operation import Call, Family, M, dump, operation
from ..models import admin as ad
from ..routes import AdminRoutes as R

In = Union[Mapping[str, Any], None]


def _id(conversation_id: str) -> Dict[str, Any]:
    return dump(ad.AdminConversationParams, {"id": conversation_id})


def _why(justification: Optional[str]) -> Dict[str, Any]:
    return {} if justification is None else {"justification": justification}


class Admin(Family[M]):
    @operation(R.list_conversations)
    def list_conversations(self, query: Union[ad.AdminListConversationsQuery, In] = None) -> Call[ad.AdminConversations]:
        return Call(query=dump(ad.AdminListConversationsQuery, query))

    @operation(R.get_conversation)
    def get_conversation(self, conversation_id: str, query: Union[ad.AdminGetConversationQuery, In] = None) -> Call[ad.AdminConversation]:
        return Call(params=_id(conversation_id), query=dump(ad.AdminGetConversationQuery, query))

    @operation(R.delete_conversation)
    def delete_conversation(
        self, conversation_id: str, justification: Optional[str] = None
    ) -> Call[Optional[ad.AdminChangeAccepted]]:
        """Soft-deletes the conversation and its whole fork tree: None once applied, or the accepted
        change (202) when it was not applied within the server's wait."""
        body = dump(ad.AdminActionRequest, _why(justification))
        return Call(params=_id(conversation_id), body=body, idempotent=True)

    @operation(R.restore_conversation)
    def restore_conversation(
        self, conversation_id: str, justification: Optional[str] = None
    ) -> Call[Union[ad.AdminConversation, ad.AdminChangeAccepted]]:
        body = dump(ad.AdminActionRequest, _why(justification))
        return Call(params=_id(conversation_id), body=body)

    @operation(R.messages)
    def messages(self, conversation_id: str, query: Union[ad.AdminMessagesQuery, In] = None) -> Call[ad.AdminMessages]:
        return Call(params=_id(conversation_id), query=dump(ad.AdminMessagesQuery, query))

    @operation(R.memberships)
    def memberships(self, conversation_id: str, query: Union[ad.AdminGetConversationQuery, In] = None) -> Call[ad.AdminMemberships]:
        return Call(params=_id(conversation_id), query=dump(ad.AdminGetConversationQuery, query))

    @operation(R.search)
    def search(self, request: Union[ad.AdminSearchRequest, Mapping[str, Any]], justification: Optional[str] = None) -> Call[ad.AdminSearchResults]:
        query = dump(ad.JustificationQuery, _why(justification))
        return Call(query=query, body=dump(ad.AdminSearchRequest, request), idempotent=True)

    @operation(R.evict)
    def evict(self, request: Union[ad.EvictRequest, Mapping[str, Any]]) -> Call[None]:
        """Evicts and waits until done (the job is the server's: it completes even if this call is cut)."""
        return Call(query=dump(ad.EvictQuery, {"async": "false"}), body=dump(ad.EvictRequest, request))

    @operation(R.evict)
    def start_eviction(self, request: Union[ad.EvictRequest, Mapping[str, Any]]) -> Call[ad.EvictionJob]:
        """Starts an eviction and answers with its job at once; follow it with ``eviction_job``."""
        return Call(query=dump(ad.EvictQuery, {"async": "true"}), body=dump(ad.EvictRequest, request))

    @operation(R.eviction_job)
    def eviction_job(self, job_id: str) -> Call[ad.EvictionJob]:
        return Call(params=dump(ad.EvictionJobParams, {"job_id": job_id}))

    @operation(R.erase)
    def erase(self, request: Union[ad.ErasureRequest, Mapping[str, Any]]) -> Call[ad.ErasureAccepted]:
        """Erases a person from every family (admin); answers at once; follow it with ``erasure``."""
        return Call(body=dump(ad.ErasureRequest, request))

    @operation(R.erasure)
    def erasure(self, erasure_id: str) -> Call[ad.ErasureReceipt]:
        """An erasure's receipt: status, times, and what it removed per family and store (auditor)."""
        return Call(params=dump(ad.ErasureParams, {"id": erasure_id}))

    @operation(R.erasures)
    def erasures(self, query: Union[ad.ErasureListQuery, In] = None) -> Call[ad.ErasureList]:
        """The latest erasures, newest first, each as its receipt (auditor); one person's with ``user_id``."""
        return Call(query=dump(ad.ErasureListQuery, query))

    @operation(R.roles)
    def roles(self) -> Call[ad.CallerRoles]:
        """The admin roles the caller holds (any caller may ask): what a front end may offer."""
        return Call()

    @operation(R.erase_me)
    def erase_me(self, justification: Optional[str] = None) -> Call[ad.ErasureAccepted]:
        """Erases the calling person themself (their own token; the local user without authentication)."""
        return Call(body=dump(ad.MyErasureRequest, {"justification": justification}))

    @operation(R.my_erasure)
    def my_erasure(self, erasure_id: str) -> Call[ad.ErasureReceipt]:
        """The receipt of an erasure of the calling person (only their own)."""
        return Call(params=dump(ad.ErasureParams, {"id": erasure_id}))

    @operation(R.dead_letters)
    def dead_letters(self, query: Union[ad.DeadLetterQuery, In] = None) -> Call[ad.DeadLetters]:
        """The latest dead-lettered records of each (or one) dead-letter topic, newest first, with
        why each was given up on (auditor or admin: a record holds what was sent)."""
        return Call(query=dump(ad.DeadLetterQuery, query))

    @operation(R.conversations_across)
    def conversations_across(self, query: Union[ad.ConsoleConversationsQuery, In] = None) -> Call[ad.ConsoleConversations]:
        """The conversations of every family the caller may read, most recently active first, filtered
        by family, group, person and last activity; page with ``cursor`` set to ``next_cursor``. Any
        caller may ask: a person gets only their own and those shared with them."""
        return Call(query=dump(ad.ConsoleConversationsQuery, query))

    @operation(R.pipeline_lag)
    def pipeline_lag(self) -> Call[ad.PipelineLag]:
        """Each consumer group's lag on each topic it reads, from the bus's own offsets (any signed-in
        caller: it holds names and counts only)."""
        return Call()

    @operation(R.audit_log)
    def audit_log(self, query: Union[ad.AuditLogQuery, In] = None) -> Call[ad.AuditLog]:
        """The audit log, oldest first; page with ``after`` set to ``next_cursor``."""
        return Call(query=dump(ad.AuditLogQuery, query))

    @operation(R.export_data)
    def export_data(self, query: Union[ad.ExportQuery, In] = None) -> Call[str]:
        """An export as its NDJSON text: the whole server, or one person's data with ``user_id``.
        Whole in memory: for a large one, stream ``GET /v1/admin/exports`` to a file (or use the CLI)."""
        return Call(query=dump(ad.ExportQuery, query))

    @operation(R.export_own_data)
    def export_own_data(self) -> Call[str]:
        """The caller's own data (a person's token), as ``export_data`` answers it."""
        return Call()

    @operation(R.import_data)
    def import_data(self, exported: Union[str, Iterable[Mapping[str, Any]]], justification: Optional[str] = None) -> Call[ad.ImportResult]:
        """Restores an export (its NDJSON text, or its records) on this server; all or nothing."""
        body = exported if isinstance(exported, str) else "\n".join(json.dumps(dict(r)) for r in exported)
        return Call(query=dump(ad.ImportQuery, _why(justification)), body=body)
