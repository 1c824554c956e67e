import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { PARTICIPANTS } from '../src/lifecycle/registry.js';
import type { LifecycleParticipant } from '../src/participant/participant.js';
import * as ark from '../src/tables/ark/lifecycle.js';
import * as auditLog from '../src/tables/audit-log/lifecycle.js';
import * as busJournal from '../src/tables/bus-journal/lifecycle.js';
import * as conversationMeta from '../src/tables/conversation-meta/lifecycle.js';
import * as conversations from '../src/tables/conversations/lifecycle.js';
import * as jobs from '../src/tables/jobs/lifecycle.js';
import * as kaos from '../src/tables/kaos/lifecycle.js';
import * as memberships from '../src/tables/memberships/lifecycle.js';
import * as memories from '../src/tables/memories/lifecycle.js';
import * as requestOutcomes from '../src/tables/request-outcomes/lifecycle.js';
import * as search from '../src/tables/search/lifecycle.js';

/**
 * Each table has one folder under `libs/store/src/tables/`, whose `lifecycle.ts` exports its
 * participant: that export is what makes the folder the table's owner. A statement in the folder
 * names its own tables; a file reaches another folder's rows through that folder's functions and
 * SQL fragments (`visibleTo`, `retentionScopeSql`), never by naming its table. Outside `tables/`,
 * only the lifecycle loops (`lifecycle/`) and the store's own two tables' files name a table.
 *
 * `FOREIGN` is what still names another folder's table, by file: none since every such reference
 * became a fragment of its owner. The test fails on a name beyond it and on one that went without
 * the list following, so the list only shrinks.
 */
const FOREIGN: Readonly<Record<string, readonly string[]>> = {};

/**
 * What the lifecycle loops still name themselves, by file: none, as the loops know the tables only
 * through the registry's participants (the import, the last, through their `import` parts). The
 * list only shrinks, as FOREIGN does.
 */
const LOOPS: Readonly<Record<string, readonly string[]>> = {};

/** The store's own files that name the store's own tables. */
const STORE_OWN: Readonly<Record<string, readonly string[]>> = {
  'distribution.ts': ['store_distribution'],
  'layout/store-layout.ts': ['store_distribution'],
  'migrate.ts': ['schema_migrations'],
};

/** Each folder's `lifecycle.ts`, by folder (a new folder must be added here: the owners test says so). */
const LIFECYCLES: Readonly<Record<string, Record<string, unknown>>> = {
  ark: ark,
  'audit-log': auditLog,
  'bus-journal': busJournal,
  'conversation-meta': conversationMeta,
  conversations: conversations,
  jobs: jobs,
  kaos: kaos,
  memberships: memberships,
  memories: memories,
  'request-outcomes': requestOutcomes,
  search: search,
};

const SRC = resolve(import.meta.dirname, '../src');
const TABLES = PARTICIPANTS.map((p) => p.table);

/** Source text without its comments: a table a comment mentions is not one the code names. */
function code(path: string): string {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  return ts.createPrinter({ removeComments: true }).printFile(file);
}

/** The tables a text names as SQL does: after FROM, JOIN, INTO, UPDATE, USING, TABLE or REFERENCES. */
function tablesNamed(text: string, tables: readonly string[] = TABLES): string[] {
  const locked = [...text.matchAll(/\bLOCK TABLE\s+([a-z_, ]+)/g)].flatMap((m) => (m[1] ?? '').trim().split(/\s*,\s*/));
  return tables.filter(
    (t) =>
      new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|USING|TABLE|REFERENCES)\\s+(ONLY\\s+)?${t}\\b`).test(text) ||
      locked.includes(t),
  );
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const isParticipant = (v: unknown): v is LifecycleParticipant =>
  typeof v === 'object' && v !== null && typeof (v as { table?: unknown }).table === 'string';

/** Each folder of `tables/` with the tables its `lifecycle.ts` exports participants for. */
function owners(): Map<string, Set<string>> {
  const folders = readdirSync(join(SRC, 'tables')).sort();
  assert.deepEqual(Object.keys(LIFECYCLES).sort(), folders, 'LIFECYCLES lists every folder of tables/');
  return new Map(
    folders.map((folder) => {
      const own = Object.values(LIFECYCLES[folder]!)
        .flatMap((v) => (Array.isArray(v) ? v : [v]))
        .filter(isParticipant);
      return [folder, new Set(own.map((p) => p.table))];
    }),
  );
}

test('the detector finds a table named after each SQL keyword, and not in a word or a string beside it', () => {
  const tables = ['messages', 'conversations'];
  assert.deepEqual(tablesNamed('SELECT 1 FROM messages m', tables), ['messages']);
  assert.deepEqual(tablesNamed('DELETE FROM ONLY conversations', tables), ['conversations']);
  assert.deepEqual(tablesNamed('x JOIN conversations c ON', tables), ['conversations']);
  assert.deepEqual(tablesNamed('UPDATE messages SET', tables), ['messages']);
  assert.deepEqual(tablesNamed("import { x } from './messages.js'", tables), []);
  assert.deepEqual(tablesNamed('FROM messages_old', tables), []);
  assert.deepEqual(tablesNamed('LOCK TABLE conversations, messages IN SHARE MODE', tables), [
    'messages',
    'conversations',
  ]);
});

test('every table of the registry has one owner: a folder of tables/, or the store itself', async () => {
  const byFolder = owners();
  const owned = [...byFolder.values()].flatMap((s) => [...s]);
  const store = [...new Set(Object.values(STORE_OWN).flat())];
  assert.deepEqual(
    [...owned, ...store].sort(),
    [...TABLES].sort(),
    'a table owned twice, or by no folder (its participant belongs in its folder’s lifecycle.ts)',
  );
});

test("a file of a table's folder names only its folder's tables, but for the known rest", () => {
  const byFolder = owners();
  const found: Record<string, string[]> = {};
  for (const [folder, own] of byFolder) {
    for (const path of tsFiles(join(SRC, 'tables', folder))) {
      const foreign = tablesNamed(code(path)).filter((t) => !own.has(t));
      if (foreign.length > 0) found[relative(SRC, path)] = foreign.sort();
    }
  }
  const total = Object.values(found).flat().length;
  console.log(`names of another folder's table: ${total}, in ${Object.keys(found).length} files`);
  assert.deepEqual(found, FOREIGN);
});

test('outside tables/, the lifecycle loops name only the known rest and other files only the store’s own tables', () => {
  const found: Record<string, string[]> = {};
  for (const path of tsFiles(SRC)) {
    const rel = relative(SRC, path);
    if (rel.startsWith('tables/')) continue;
    const named = tablesNamed(code(path));
    if (named.length > 0) found[rel] = named.sort();
  }
  const loops = Object.fromEntries(Object.entries(found).filter(([f]) => f.startsWith('lifecycle/')));
  const rest = Object.fromEntries(Object.entries(found).filter(([f]) => !f.startsWith('lifecycle/')));
  console.log(`names of a table in the lifecycle loops: ${Object.values(loops).flat().length}`);
  assert.deepEqual(loops, LOOPS);
  assert.deepEqual(rest, STORE_OWN);
});
