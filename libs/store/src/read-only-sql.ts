/**
 * Whether a statement only reads, so that a hot standby can run it. A plain SELECT or WITH that
 * names nothing that writes, locks rows, takes an advisory lock or draws a sequence value. A
 * statement wrongly taken for a read is refused by the standby (SQLSTATE 25006) and run on the
 * primary (see ReplicaReads); an advisory lock would not be refused, only be useless there, so
 * the list errs on the side of the primary: a word like UPDATE anywhere in the text is enough.
 */
export function isReadOnly(sql: string): boolean {
  let known = verdicts.get(sql);
  if (known === undefined) {
    const text = sql.replace(LEADING_COMMENTS, '');
    known = READS.test(text) && !WRITES.test(text);
    if (verdicts.size < MAX_VERDICTS) verdicts.set(sql, known);
  }
  return known;
}

const LEADING_COMMENTS = /^(?:\s|\/\*[\s\S]*?\*\/|--[^\n]*\n)*/;
const READS = /^(?:SELECT|WITH)\b/i;
const WRITES =
  /\b(?:INSERT|UPDATE|DELETE|MERGE|TRUNCATE|nextval|setval|pg_advisory_\w+|pg_try_advisory_\w+|pg_notify|txid_current|pg_current_xact_id|FOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|SHARE|KEY\s+SHARE))\b/i;

/** memstream's statements are constant strings, so the verdicts are few; the cap only guards against SQL built from data. */
const MAX_VERDICTS = 1000;
const verdicts = new Map<string, boolean>();

/** A WAL position (`16/B374D848`) as one number, for comparing positions. */
export function fromLsn(lsn: string): bigint {
  const slash = lsn.indexOf('/');
  return (BigInt(`0x${lsn.slice(0, slash)}`) << 32n) | BigInt(`0x${lsn.slice(slash + 1)}`);
}
