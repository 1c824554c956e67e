import type { Queryable } from '../store.js';
import type { ForgetMessagesBefore, RetainPass, RetainedKind, TableRetain } from '../participant/participant.js';
import { forgetMessagesIn } from './forget.js';
import { RETAIN_ORDER } from './registry.js';
import { cutoffOf } from '../retention-cutoff.js';
import { purgeConversationGroups } from './purge-conversations.js';
import type { RetentionBatch, RetentionKind, RetentionScope } from '../participant/retention-counts.js';

export {
  addRetentionCounts,
  noRetentionCounts,
  RETENTION_KINDS,
  type RetentionBatch,
  type RetentionCounts,
  type RetentionKind,
  type RetentionScope,
} from '../participant/retention-counts.js';
export { RETENTION_METADATA_KEY, retentionOverrides } from '../tables/conversations/retention-scope.js';

/**
 * The database side of retention, as batches the retention job runs one transaction at a time
 * (services/governance retention-runner.ts). Each batch finds what is still older than its cutoff,
 * so a batch redone after a crash removes nothing twice. What each kind is, and its age:
 * docs/your-users-data.md. Which rows each kind removes, and how, is the tables' own (the retain
 * part of each lifecycle participant); this file only runs them, in RETAIN_ORDER.
 */

/** One pass: a table's rows of one kind older than one cutoff, in one scope, run batch by batch. */
export interface RetentionPass {
  readonly kind: RetainedKind;
  readonly table: string;
  readonly cutoff: Date;
  readonly scope: RetentionScope;
  /** One batch, in the caller's transaction; `after` is the previous batch's. */
  readonly batch: (tx: Queryable, after: string | undefined) => Promise<RetentionBatch>;
}

/**
 * The passes of one run, in the order they are to run (RETAIN_STAGES says why): for each table
 * retention removes from, one with its kind's period, if set, then one per conversation override
 * that shortens it (an override no shorter than the setting adds nothing).
 */
export function retentionPasses(o: {
  periods: Partial<Record<RetentionKind, string>>;
  /** The valid overrides found in conversations' metadata. */
  overrides: readonly string[];
  now: Date;
  batchSize: number;
}): RetentionPass[] {
  const passes: RetentionPass[] = [];
  for (const { table, retain } of RETAIN_ORDER) {
    const setting = o.periods[retain.kind];
    const global = setting === undefined ? undefined : cutoffOf(setting, o.now);
    const scoped: { cutoff: Date; scope: RetentionScope }[] = global ? [{ cutoff: global, scope: {} }] : [];
    if (retain.overridable)
      for (const override of o.overrides) {
        const cutoff = cutoffOf(override, o.now);
        if (global === undefined || cutoff > global) scoped.push({ cutoff, scope: { override } });
      }
    for (const s of scoped)
      passes.push({
        kind: retain.kind,
        table,
        ...s,
        batch: (tx, after) => retainBatch(tx, retain, { ...s, batchSize: o.batchSize, after, forgetMessagesBefore }),
      });
  }
  return passes;
}

const forgetMessagesBefore: ForgetMessagesBefore = (tx, conversationId, before) =>
  forgetMessagesIn(tx, { conversationId, before });

async function retainBatch(tx: Queryable, retain: TableRetain, pass: RetainPass): Promise<RetentionBatch> {
  if ('rows' in retain.goes) return retain.goes.rows(tx, pass);
  const groups = await retain.goes.groups(tx, pass);
  const purged = await purgeConversationGroups(tx, groups);
  return {
    counts: {
      [retain.goes.counts]: groups.length,
      messages: purged.counts.messages,
      searchRows: purged.counts.searchItems,
      episodes: purged.counts.episodes,
      episodicMemories: purged.counts.episodicMemories,
      summaries: purged.counts.summaries,
    },
    finished: groups.length < pass.batchSize,
    conversationIds: purged.conversationIds,
  };
}
