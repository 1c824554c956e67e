import type {
  AdminConversationRecord,
  AuditRecord,
  ErasureJob,
  EvictionJob,
  MemoryServiceStoredMessage,
} from '@memstream/store';
import { addErasureCounts, evictionProgress } from '@memstream/store';

/** memory-service leaves a field out rather than sending null where its contract has no null. */
export function adminConversationView(c: AdminConversationRecord) {
  return {
    id: c.id,
    title: c.title,
    ...(c.owner_user_id === null ? {} : { ownerUserId: c.owner_user_id }),
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
    deletedAt: c.deleted_at?.toISOString() ?? null,
    lastMessagePreview: c.last_message_preview,
  };
}

export function adminConversationDetail(c: AdminConversationRecord) {
  return {
    ...adminConversationView(c),
    forkedAtMessageId: c.forked_at_message_id,
    forkedAtConversationId: c.forked_at_conversation_id,
  };
}

/** The code layout's message: every channel, agents' memory included (admins see everything). */
export function adminMessageView(m: MemoryServiceStoredMessage) {
  return {
    id: m.message_id,
    conversationId: m.conversation_id,
    ...(m.ms.user_id == null ? {} : { userId: m.ms.user_id }),
    channel: m.ms.channel,
    ...(m.ms.epoch == null ? {} : { epoch: m.ms.epoch }),
    content: m.ms.content,
    createdAt: m.ms.created_at,
  };
}

export function evictionJobView(job: EvictionJob) {
  return {
    jobId: job.id,
    status: job.status.toUpperCase() as 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED',
    progress: evictionProgress(job),
    createdAt: job.created_at.toISOString(),
    completedAt: job.completed_at?.toISOString() ?? null,
    error: job.error,
    counts: { ...job.counts },
  };
}

export function auditView(r: AuditRecord) {
  return {
    id: r.id,
    occurredAt: r.occurred_at.toISOString(),
    actorKind: r.actor_kind,
    actorId: r.actor_id,
    role: r.role,
    action: r.action,
    target: r.target,
    justification: r.justification,
    status: r.status,
    params: r.params,
    counts: r.counts,
  };
}

/** The receipt: every family and store listed, those with nothing removed as empty objects. */
export function erasureReceiptView(job: ErasureJob) {
  return {
    id: job.id,
    userId: job.user_id,
    status: job.status,
    requestedBy: job.requested_by,
    self: job.self,
    requestedAt: job.requested_at.toISOString(),
    startedAt: job.started_at?.toISOString() ?? null,
    completedAt: job.completed_at?.toISOString() ?? null,
    step: job.step,
    passes: job.passes,
    error: job.error,
    reason: job.reason,
    counts: addErasureCounts(job.counts, {}),
  };
}
