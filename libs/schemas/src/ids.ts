import { z } from 'zod';

/**
 * The one rule for the ids that name conversations, groups, sessions and agents in every family
 * (EverMemOS group_id, ARK session_id, memory-service conversation ids, KAOS session ids and
 * agent names). Ids are shared across families, so an id one family accepts must reach the same
 * conversation through every other: the rule admits free-form text (`team/alpha:chat 1`,
 * Kubernetes names with dots) and refuses only what cannot travel safely in a URL path segment or
 * a storage key: the empty or blank id, `.` and `..` (a path resolves them away), control
 * characters (NUL included) and unpaired UTF-16 surrogates (not characters: they have no UTF-8
 * form). Everything else travels percent-encoded in paths (`encodeURIComponent`).
 *
 * The rule is one pattern, so the published OpenAPI document says exactly what validation does.
 * It is applied where an id is written or named in a path; filters that look up existing data
 * (query strings, deletion filters) keep accepting any stored id, so data written before the
 * rule stays readable and deletable.
 */
export const SAFE_ID_MAX_CHARS = 255;

// C0 controls, DEL and C1 controls; surrogates are admitted only as a high-low pair.
const SAFE_CHAR = '(?:[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[^\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF])';
/** Not `.` or `..`; at least one character that is not white space; only safe characters. */
export const SAFE_ID_PATTERN = new RegExp(`^(?!\\.{1,2}$)(?=[\\s\\S]*\\S)${SAFE_CHAR}+$`);

export const SAFE_ID_RULE = `1 to ${SAFE_ID_MAX_CHARS} characters, not blank, not . or .., without control characters (NUL included) or unpaired surrogates`;

export const SafeId = z
  .string()
  .min(1, { message: `must be ${SAFE_ID_RULE}` })
  .max(SAFE_ID_MAX_CHARS, { message: `must be ${SAFE_ID_RULE}` })
  .regex(SAFE_ID_PATTERN, { message: `must be ${SAFE_ID_RULE}` })
  .meta({ description: `An id: ${SAFE_ID_RULE}; percent-encoded in paths` });

/** True when `value` follows the id rule. */
export function isSafeId(value: string): boolean {
  return SafeId.safeParse(value).success;
}

/**
 * One part of a derived key (`kaos:<agent>:<session>`): `%` and `:` percent-encoded, so the key
 * splits back into its parts unambiguously and no two part lists give one key, while a part
 * without either character is kept as it is (keys of ids written before stay the same).
 */
export function keyPart(part: string): string {
  return part.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));
}

/** The longest keyPart of an id: every character of it `%` or `:`, each three characters. */
export const KEY_PART_MAX_CHARS = SAFE_ID_MAX_CHARS * 3;

/**
 * The longest id a stored conversation can have: a private chat is `private:<sender>`, and a
 * sender (a person's id) may have 255 characters. Read filters that name a conversation take ids
 * up to this, so every private chat can be read by its id.
 */
export const STORED_ID_MAX_CHARS = SAFE_ID_MAX_CHARS + 'private:'.length;
