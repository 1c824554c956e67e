import type { TableDistribution } from '@memstream/store';
import { joinsWithoutShardKey } from './sql-join-rule.js';
import { HOLE, type SqlText } from './sql-statements.js';

/**
 * The statement rules a distributed PostgreSQL (Citus) holds the store to, as docs/store.md
 * states them. Each is checked on a statement's text, so it is a lint: it can be fooled by SQL
 * built from pieces it cannot see (sql-statements.ts's HOLE), and errs towards reporting.
 */
export type Rule =
  /**
   * now()/clock_timestamp() in an upsert's DO UPDATE (its SET or WHERE) or an UPDATE's SET, or
   * timestamp arithmetic in the DO UPDATE
   */
  | 'time-in-write'
  /** FOR UPDATE/SHARE or SKIP LOCKED over a distributed table without an equality on its shard column */
  | 'lock-without-shard-key'
  /** LATERAL in a statement over unnest(), or a subquery reading an unnest() alias */
  | 'unnest-lateral-or-correlated'
  /** a call to a SQL function whose body reads or writes a distributed table */
  | 'function-over-distributed'
  /** a conversation's group computed as COALESCE(group_id, id), not read from a shard column */
  | 'computed-group'
  /** a trigger on a distributed table (read from the schema, reported against schema.sql) */
  | 'trigger-on-distributed'
  /** a join of distributed tables, or a subquery correlated with one, not equating their shard columns (sql-join-rule.ts) */
  | 'join-without-shard-key';

export interface Breach {
  readonly file: string;
  readonly line: number;
  readonly rule: Rule;
}

export interface RuleContext {
  readonly registry: ReadonlyMap<string, TableDistribution>;
  /** names of the schema's functions that touch a distributed table */
  readonly functionsOverDistributed: ReadonlySet<string>;
}

const TIME =
  /\b(now|clock_timestamp|statement_timestamp|transaction_timestamp)\s*\(|\b(current_timestamp|localtimestamp)\b/i;
// timestamptz ± interval is only STABLE (it depends on the session's time zone), and an upsert's
// DO UPDATE on a distributed or reference table takes IMMUTABLE expressions only
const TIME_ARITHMETIC = /\bmake_interval\s*\(|::timestamptz\s*[-+]|[-+]\s*interval\b/i;
const LOCK = /\bFOR\s+(NO\s+KEY\s+|KEY\s+)?(UPDATE|SHARE)\b|\bSKIP\s+LOCKED\b/i;
const STATEMENT = /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b/;
const CLOCK_ASSIGNED = /\b[a-z_]+\s*=\s*(now|clock_timestamp|statement_timestamp|transaction_timestamp)\s*\(/i;
const TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|USING)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)/gi;

export function breachesOf(text: SqlText, ctx: RuleContext): Breach[] {
  const rules: Rule[] = [];
  if (timeInWrite(text.sql, ctx)) rules.push('time-in-write');
  if (lockWithoutShardKey(text.sql, ctx)) rules.push('lock-without-shard-key');
  if (unnestLateralOrCorrelated(text.sql)) rules.push('unnest-lateral-or-correlated');
  if ([...ctx.functionsOverDistributed].some((f) => new RegExp(`\\b${f}\\s*\\(`, 'i').test(text.sql)))
    rules.push('function-over-distributed');
  if (joinsWithoutShardKey(text.sql, ctx.registry).length > 0) rules.push('join-without-shard-key');
  if (/\bCOALESCE\s*\(\s*(\w+\.)?group_id\s*,\s*(\w+\.)?id\s*\)/i.test(text.sql)) rules.push('computed-group');
  return rules.map((rule) => ({ file: text.file, line: text.line, rule }));
}

const spread = (kind: TableDistribution['kind'] | undefined) => kind === 'distributed' || kind === 'reference';

function timeInWrite(sql: string, ctx: RuleContext): boolean {
  // a SET-list fragment (`updated_at = now()`) spliced into statements this lint reads as HOLEs
  if (!STATEMENT.test(sql) && CLOCK_ASSIGNED.test(sql)) return true;
  for (const m of sql.matchAll(/\bINSERT INTO\s+([a-z_][a-z0-9_]*)/gi)) {
    const rest = sql.slice(m.index);
    const doUpdate = rest.search(/\bDO UPDATE\b/i);
    if (
      doUpdate >= 0 &&
      spread(ctx.registry.get(m[1] ?? '')?.kind) &&
      (TIME.test(untilClose(rest, doUpdate, /\bRETURNING\b/i)) ||
        TIME_ARITHMETIC.test(untilClose(rest, doUpdate, /\bRETURNING\b/i)))
    )
      return true;
  }
  for (const m of sql.matchAll(/(?<!\b(FOR|DO|KEY)\s)\bUPDATE\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)\b[^()]*?\bSET\b/gi)) {
    // a table named by a variable cannot be shown to be local
    if (m[2] !== HOLE && !spread(ctx.registry.get(m[2] ?? '')?.kind)) continue;
    const set = (m.index ?? 0) + m[0].length;
    if (TIME.test(untilClose(sql, set, /\b(FROM|WHERE|RETURNING)\b/i))) return true;
  }
  return false;
}

function lockWithoutShardKey(sql: string, ctx: RuleContext): boolean {
  if (!LOCK.test(sql)) return false;
  const tables = [...sql.matchAll(TABLE)].map((m) => ctx.registry.get((m[1] ?? '').toLowerCase()));
  // a lock over a table this lint cannot name (built from a variable) is not shown to be keyed
  if (!tables.some((t) => t !== undefined)) return true;
  return tables.some(
    (t) => t?.kind === 'distributed' && !new RegExp(`\\b${t.shardColumn}\\s*(=|IN\\s*\\()`, 'i').test(sql),
  );
}

function unnestLateralOrCorrelated(sql: string): boolean {
  if (!/\bunnest\s*\(/i.test(sql)) return false;
  if (/\bLATERAL\b/i.test(sql)) return true;
  const aliases = [...sql.matchAll(/\bunnest\s*\(/gi)].flatMap((m) => {
    const after = sql.slice(untilCloseIndex(sql, (m.index ?? 0) + m[0].length) + 1);
    const alias = /^\s*(?:WITH ORDINALITY\s*)?(?:AS\s+)?([a-z_][a-z0-9_]*)/i.exec(after)?.[1];
    return alias && !/^(WHERE|ON|GROUP|ORDER|LIMIT|JOIN|LEFT|CROSS|UNION|HAVING)$/i.test(alias) ? [alias] : [];
  });
  for (const m of sql.matchAll(/\(\s*SELECT\b/gi)) {
    const start = (m.index ?? 0) + 1;
    const body = sql.slice(start, untilCloseIndex(sql, start));
    if (aliases.some((a) => new RegExp(`\\b${a}\\.`).test(body) && !/unnest\s*\(/i.test(body))) return true;
  }
  return false;
}

/** The index of the parenthesis closing the one open at `from` (or the end of the text). */
function untilCloseIndex(sql: string, from: number): number {
  let depth = 0;
  for (let i = from; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth < 0) return i;
  }
  return sql.length;
}

/** The text from `from` to the end of its parenthesised level or, at that level, to the word `stop`. */
function untilClose(sql: string, from: number, stop: RegExp): string {
  const end = untilCloseIndex(sql, from);
  const word = new RegExp(`^(?:${stop.source})`, 'i');
  let depth = 0;
  for (let i = from; i < end; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')') depth--;
    else if (depth === 0 && i > from && /\W/.test(sql[i - 1] ?? ' ') && word.test(sql.slice(i)))
      return sql.slice(from, i);
  }
  return sql.slice(from, end);
}
