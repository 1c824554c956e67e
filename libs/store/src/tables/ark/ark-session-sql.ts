/**
 * True when an ARK session of the id has a row (its stream was started or completed), an SQL
 * expression over `session`: a session with chunks and no message yet has no conversation, so a
 * check of an id's use asks this too. Kept apart from ark.ts, which reads access through
 * memberships, so that memberships may ask it without a cycle.
 */
export const arkSessionExists = (session: string) =>
  `EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = ${session})`;
