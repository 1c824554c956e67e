import type { TableDistribution } from '@memstream/store';
import { HOLE } from './sql-statements.js';

/**
 * The `join-without-shard-key` rule (docs/store.md, statement rules): Citus runs a join of two
 * distributed tables, or a subquery correlated with one, on one shard only when both shard
 * columns are equal; otherwise it repartitions or refuses ("complex joins are only supported when
 * all distributed tables are co-located and joined on their distribution columns").
 *
 * A statement is read as query blocks: the statement itself and each parenthesised query in it
 * (a CTE's body, a derived table, an EXISTS/IN/scalar/LATERAL subquery), split at UNION,
 * INTERSECT and EXCEPT. A block's relations are its FROM and JOIN items, an UPDATE's or DELETE's
 * table and a DELETE's USING items; a relation is distributed when the registry says so. Every
 * `x = y` in a block (a cast dropped; `x IN (v)` of one value too) joins x and y into one
 * class, a column named by its alias or, in a block of one relation, bare, a parameter or literal
 * by its text; so two shard columns equal to one parameter are one class, as the rows are on one
 * shard. A block breaks the rule when:
 * - two of its distributed relations have shard columns in different classes (a JOIN's ON, the
 *   WHERE of a comma join, UPDATE … FROM or DELETE … USING, or a USING list naming both);
 * - it names a distributed relation of an enclosing block (a correlated subquery) and one of its
 *   own distributed relations has a shard column outside that relation's class;
 * - it names an alias declared nowhere in the text (a fragment spliced into another statement,
 *   unless its own FROM holds a piece built by code, which may declare it) and one of its
 *   distributed relations has a shard column equal to no such outside name, no parameter or
 *   literal and no piece built by code.
 * Equal shard columns is all it asks, so `person_groups` (by person) and `kaos_session_names`
 * (by agent) meet a table sharded by group only on one parameter. Not seen: a relation named by
 * a variable (`JOIN ${table}`) or declared inside one, a column of an outer block named without
 * its alias, an equality under OR (counted as if it held). An equality in the WHERE counts for
 * an outer join too: it rejects the join's NULL rows, so PostgreSQL plans the join as inner.
 */
export function joinsWithoutShardKey(sql: string, registry: ReadonlyMap<string, TableDistribution>): string[] {
  const masked = maskStrings(sql);
  const all = blocksOf(masked, registry);
  const classes = new Classes();
  for (const b of all) for (const [x, y] of equalities(sql, b)) classes.join(x, y);
  const out: string[] = [];
  for (const b of all) {
    const spread = b.relations.filter((r) => r.shard !== null && r.role !== 'into');
    for (const [i, r] of spread.entries())
      for (const s of spread.slice(i + 1))
        if (!classes.same(shardKey(b, r), shardKey(b, s))) out.push(`${describe(r)} joined to ${describe(s)}`);
    if (b.parent === undefined || spread.length === 0) continue;
    for (const alias of outsideAliases(b)) {
      const outer = resolve(b.parent, alias);
      if (outer?.relation.shard) {
        const key = shardKey(outer.block, outer.relation);
        for (const r of spread)
          if (!classes.same(shardKey(b, r), key))
            out.push(`${describe(r)} correlated with ${describe(outer.relation)}`);
      } else if (outer === undefined && alias !== 'excluded' && !b.relations.some((r) => r.table === HOLE)) {
        for (const r of spread)
          if (!classes.members(shardKey(b, r)).some((k) => k.startsWith('?:') || k.startsWith('v:')))
            out.push(`${describe(r)} correlated with ${alias}, an alias declared outside the text`);
      }
    }
  }
  return [...new Set(out)];
}

interface Relation {
  readonly alias: string;
  readonly table: string;
  readonly shard: string | null;
  readonly role: 'from' | 'into';
  /** the columns of its `JOIN … USING (…)` */
  using?: string[];
}

interface Block {
  readonly id: number;
  readonly start: number;
  readonly end: number;
  readonly parent: Block | undefined;
  /** the block's text, its nested queries and quoted strings blanked */
  readonly own: string;
  readonly relations: Relation[];
}

const QUERY_START = /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|VALUES)\b/i;
const SET_OPERATOR = /\b(UNION(\s+ALL)?|INTERSECT|EXCEPT)\b/gi;
const CLAUSE_END =
  /\b(WHERE|GROUP\s+BY|ORDER\s+BY|LIMIT|OFFSET|HAVING|WINDOW|RETURNING|ON\s+CONFLICT|SET|FOR\s+(NO\s+KEY\s+|KEY\s+)?(UPDATE|SHARE))\b/i;
const ITEM_SEPARATOR = /,|\b(?:NATURAL\s+)?(?:(?:LEFT|RIGHT|FULL)(?:\s+OUTER)?\s+|INNER\s+|CROSS\s+)?JOIN\b/gi;
const NOT_ALIAS =
  /^(ON|USING|WHERE|JOIN|LEFT|RIGHT|FULL|INNER|CROSS|NATURAL|GROUP|ORDER|LIMIT|OFFSET|HAVING|WINDOW|RETURNING|SET|FOR|UNION|INTERSECT|EXCEPT|WITH|SELECT|DEFAULT|VALUES)$/i;
const ITEM =
  /^\s*(?:LATERAL\s+)?(?:ONLY\s+)?(?:([a-z_][a-z0-9_]*)(?:\s*(\(\s*\)))?|\(\s*\))(?:\s+WITH\s+ORDINALITY)?(?:\s+(?:AS\s+)?([a-z_][a-z0-9_]*))?/i;
const OPERAND = String.raw`(?:(?:[a-z_][a-z0-9_]*) ?\. ?(?:[a-z_][a-z0-9_]*|"[^"]*")|\$\d+|\$ ${HOLE}|'[^']*'(?: ?\|\| ?\$(?:\d+| ${HOLE}))?|[a-z_][a-z0-9_]*)(?:::[a-z_][a-z0-9_]*(?:\[\])?)*`;
const LEFT_OPERAND = new RegExp(`(${OPERAND})\\s*$`, 'i');
const RIGHT_OPERAND = new RegExp(`^\\s*(${OPERAND})(?!\\s*\\()`, 'i');
const ONE_VALUE = new RegExp(`^(\\$\\d+|\\$ ${HOLE}|'[^']*')(::[a-z_][a-z0-9_]*(\\[\\])?)*$`, 'i');
const KEYWORD = /^(NULL|TRUE|FALSE|ANY|ALL|SOME|ARRAY|CASE|NOT|AND|OR)$/i;

const describe = (r: Relation) => (r.alias === r.table ? r.table : `${r.table} ${r.alias}`);
const shardKey = (b: Block, r: Relation) => `${b.id}:${r.alias}.${r.shard}`;

function blocksOf(masked: string, registry: ReadonlyMap<string, TableDistribution>): Block[] {
  const out: Block[] = [];
  const visit = (start: number, end: number, parent: Block | undefined) => {
    const children = queryParens(masked, start, end);
    let own = masked.slice(start, end);
    for (const [s, e] of children) own = own.slice(0, s - start) + ' '.repeat(e - s) + own.slice(e - start);
    const flat = blankParens(own);
    const cuts = [0, ...[...flat.matchAll(SET_OPERATOR)].flatMap((m) => [m.index, m.index + m[0].length]), flat.length];
    const parts: Block[] = [];
    for (let i = 0; i < cuts.length; i += 2) {
      const [s, e] = [cuts[i] ?? 0, cuts[i + 1] ?? flat.length];
      const block: Block = {
        id: out.length,
        start: start + s,
        end: start + e,
        parent,
        own: own.slice(s, e),
        relations: relationsOf(flat.slice(s, e), own.slice(s, e), registry),
      };
      out.push(block);
      parts.push(block);
    }
    for (const [s, e] of children) visit(s, e, parts.find((p) => s >= p.start && s < p.end) ?? parts[0]);
  };
  visit(0, masked.length, undefined);
  return out;
}

/** The outermost parenthesised queries in `[start, end)`, as the ranges inside their parentheses. */
function queryParens(text: string, start: number, end: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = start; i < end; i++) {
    if (text[i] !== '(' || !QUERY_START.test(text.slice(i + 1, i + 40))) continue;
    const close = closing(text, i);
    out.push([i + 1, close]);
    i = close;
  }
  return out;
}

function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** The text with what every parenthesis holds blanked, so that only its own level's words are left. */
function blankParens(text: string): string {
  let depth = 0;
  let out = '';
  for (const c of text) {
    if (c === ')') depth = Math.max(0, depth - 1);
    out += depth > 0 && c !== '(' && c !== ')' ? ' ' : c;
    if (c === '(') depth++;
  }
  return out;
}

function maskStrings(sql: string): string {
  return sql.replace(/'[^']*'/g, (s) => `'${' '.repeat(s.length - 2)}'`);
}

function relationsOf(flat: string, own: string, registry: ReadonlyMap<string, TableDistribution>): Relation[] {
  const out: Relation[] = [];
  const add = (table: string, alias: string | undefined, role: Relation['role']) => {
    const t = registry.get(table.toLowerCase());
    const named = alias && !NOT_ALIAS.test(alias) ? alias : table;
    out.push({
      alias: named.toLowerCase(),
      table: table.toLowerCase(),
      shard: t?.kind === 'distributed' ? t.shardColumn : null,
      role,
    });
  };
  const target =
    /(?<!\b(?:DO|FOR|KEY)\s+)\bUPDATE\s+(?:ONLY\s+)?([a-z_]\w*)(?:\s+(?:AS\s+)?([a-z_]\w*))?\s+SET\b|\bDELETE\s+FROM\s+(?:ONLY\s+)?([a-z_]\w*)(?:\s+(?:AS\s+)?([a-z_]\w*))?/i.exec(
      flat,
    );
  if (target) add(target[1] ?? target[3] ?? '', target[2] ?? target[4], 'from');
  const into = /\bINSERT\s+INTO\s+([a-z_]\w*)(?:\s+AS\s+([a-z_]\w*))?/i.exec(flat);
  if (into?.[1]) add(into[1], into[2], 'into');
  for (const m of flat.matchAll(/(?<!\b(?:DISTINCT|DELETE)\s+)\bFROM\b|\bUSING\b(?!\s*\()/gi)) {
    const from = m.index + m[0].length;
    const end = from + (flat.slice(from).search(CLAUSE_END) + 1 || flat.length - from + 1) - 1;
    const seps = [...flat.slice(from, end).matchAll(ITEM_SEPARATOR)];
    const starts = [0, ...seps.map((s) => s.index + s[0].length)];
    for (const [i, s] of starts.entries()) {
      const item = flat.slice(from + s, from + (seps[i]?.index ?? end - from));
      const parsed = ITEM.exec(item);
      if (!parsed) continue;
      add(parsed[2] || !parsed[1] ? '' : parsed[1], parsed[3], 'from');
      const using = /\bUSING\s*\(/i.exec(item);
      if (using) {
        const open = from + s + using.index + using[0].length - 1;
        const columns = own
          .slice(open + 1, closing(own, open))
          .split(',')
          .map((c) => c.trim().toLowerCase());
        const joined = out.at(-1);
        if (joined) joined.using = columns;
      }
    }
  }
  return out;
}

/** Pairs of terms a block states equal: its `x = y`, its `x IN (list)`, and its JOIN … USING lists. */
function equalities(sql: string, b: Block): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const own = b.own;
  for (let i = own.indexOf('='); i >= 0; i = own.indexOf('=', i + 1)) {
    if (/[<>!:=]/.test(own[i - 1] ?? '') || /[>=]/.test(own[i + 1] ?? '')) continue;
    const left = LEFT_OPERAND.exec(own.slice(Math.max(0, i - 200), i));
    const right = RIGHT_OPERAND.exec(own.slice(i + 1));
    if (!left?.[1] || !right?.[1]) continue;
    const leftAt = b.start + i - left[0].length + (left[0].length - left[0].trimStart().length);
    const rightAt = b.start + i + 1 + right[0].indexOf(right[1]);
    out.push([
      term(b, sql.slice(leftAt, leftAt + left[1].length)),
      term(b, sql.slice(rightAt, rightAt + right[1].length)),
    ]);
  }
  // a list of one value is that value; one of several may span shards, and a subquery is no value
  for (const m of own.matchAll(new RegExp(`(${OPERAND})\\s+IN\\s*\\(`, 'gi'))) {
    const open = m.index + m[0].length - 1;
    const list = sql.slice(b.start + open + 1, b.start + closing(own, open)).trim();
    if (ONE_VALUE.test(list)) out.push([term(b, m[1] ?? ''), term(b, list)]);
  }
  for (const [i, r] of b.relations.entries())
    for (const c of r.using ?? [])
      for (const l of b.relations.slice(0, i)) out.push([`${b.id}:${l.alias}.${c}`, `${b.id}:${r.alias}.${c}`]);
  return out;
}

/** A class key: a column by the block declaring its alias (`?:` when none does), a value by its text. */
function term(b: Block, text: string): string {
  const t = text.replace(/::[a-z_][a-z0-9_]*(\[\])?/gi, '').replace(/\s+/g, '');
  if (t.startsWith('$') || t.startsWith("'")) return `v:${t}`;
  const dot = t.indexOf('.');
  if (dot > 0) {
    const [alias, column] = [t.slice(0, dot).toLowerCase(), t.slice(dot + 1).toLowerCase()];
    const found = resolve(b, alias);
    return found ? `${found.block.id}:${alias}.${column}` : `?:${alias}.${column}`;
  }
  if (t === HOLE) return `?:${HOLE}`;
  const single = b.relations.filter((r) => r.role === 'from');
  if (KEYWORD.test(t) || single.length !== 1) return `~:${b.id}:${t}`;
  return `${b.id}:${single[0]?.alias}.${t.toLowerCase()}`;
}

function resolve(from: Block | undefined, alias: string): { block: Block; relation: Relation } | undefined {
  for (let b = from; b; b = b.parent) {
    const relation = b.relations.find((r) => r.alias === alias);
    if (relation) return { block: b, relation };
  }
  return undefined;
}

/** The aliases a block's own text qualifies a column with (`alias.column`) that it does not declare. */
function outsideAliases(b: Block): Set<string> {
  const aliases = new Set<string>();
  for (const m of b.own.matchAll(/(?<![\w$.])([a-z_][a-z0-9_]*) ?\. ?(?:[a-z_"])/gi)) {
    const alias = (m[1] ?? '').toLowerCase();
    if (!b.relations.some((r) => r.alias === alias)) aliases.add(alias);
  }
  return aliases;
}

class Classes {
  private readonly parent = new Map<string, string>();
  private find(k: string): string {
    let p = this.parent.get(k) ?? k;
    while (p !== (this.parent.get(p) ?? p)) p = this.parent.get(p) ?? p;
    return p;
  }
  join(a: string, b: string): void {
    this.parent.set(this.find(a), this.find(b));
    if (!this.parent.has(b)) this.parent.set(b, b);
  }
  same(a: string, b: string): boolean {
    return a === b || this.find(a) === this.find(b);
  }
  members(k: string): string[] {
    const root = this.find(k);
    return [...this.parent.keys()].filter((m) => this.find(m) === root);
  }
}
