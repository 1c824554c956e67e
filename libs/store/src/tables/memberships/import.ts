import type { Queryable } from '../../store.js';
import {
  ID_TAKEN,
  idsFound,
  inGroup,
  inserted,
  insertSql,
  withIdsTaken,
  refuseIdsTakenElsewhere,
} from '../../participant/import-rows.js';
import type { ImportGrant, TableImport } from '../../participant/table-import.js';
import { IMPORT_MEMBERSHIPS } from './membership-rows.js';

const MEMBERSHIP_REMOVALS = insertSql(
  'conversation_membership_removals',
  'id bigint, group_id text, user_id text, access_level text, created_at timestamptz, removed_at timestamptz',
  'group_id',
);

const OWNERSHIP_TRANSFERS = insertSql(
  'conversation_ownership_transfers',
  `id text, group_id text, conversation_id text, from_user_id text, to_user_id text, status text,
   created_at timestamptz, decided_at timestamptz`,
  'conversation_id',
  ID_TAKEN,
);

/** Every membership of the groups: in groups the import created, each one it granted. */
async function membershipsOf(q: Queryable, groups: readonly string[]): Promise<ImportGrant[]> {
  const { rows: found } = await q.query<ImportGrant>(
    `SELECT group_id AS "groupId", user_id AS "userId", access_level AS "accessLevel" FROM conversation_memberships
     WHERE group_id = ANY($1::text[]) ORDER BY group_id, user_id`,
    [groups],
  );
  return found;
}

// Written with their inverse rows (person_groups) by the statement membership-rows.ts keeps for both.
export const membershipImport: TableImport<'membership'> = {
  kind: 'membership',
  needs: inGroup,
  // of the ids, the groups that have members (a claim made before the group's first message)
  holds: (q, ids) =>
    idsFound(q, 'SELECT DISTINCT group_id AS id FROM conversation_memberships WHERE group_id = ANY($1::text[])', ids),
  write: (q, records) => inserted(q, IMPORT_MEMBERSHIPS, records),
  granted: membershipsOf,
};

export const membershipRemovalImport: TableImport<'membership_removal'> = {
  kind: 'membership_removal',
  needs: inGroup,
  check: (q, records) =>
    refuseIdsTakenElsewhere(q, records, {
      what: 'membership removal',
      table: 'conversation_membership_removals',
      columns: `id bigint, "groupId" text, "userId" text`,
      sameRow: `x.group_id = r."groupId" AND x.user_id = r."userId"`,
    }),
  write: (q, records) => inserted(q, MEMBERSHIP_REMOVALS, records),
  numbered: 'id',
};

export const ownershipTransferImport: TableImport<'ownership_transfer'> = {
  kind: 'ownership_transfer',
  needs: (r) => ({ owner: r.conversationId, conversations: [r.conversationId], groups: [r.groupId] }),
  write: async (q, records) =>
    inserted(q, OWNERSHIP_TRANSFERS, await withIdsTaken(q, 'conversation_ownership_transfers', records)),
};
