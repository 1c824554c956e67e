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

/*
 * The rule is said in a pattern (the characters) and a `not` pattern (blank, `.` and `..`), both
 * written for every reader of the document, not only JavaScript: no lookaround and no surrogate
 * escape. Schemathesis (Rust's and Python's engines) drops a pattern naming `\uD800` and then
 * draws ids the server refuses, and a single repeated item lets it draw ids of any length fast.
 * They are read with the `u` flag, as JSON Schema says: a character is a code point, so an
 * unpaired surrogate is one character the class does not admit, and a pair is one astral
 * character (`[^\u0000-\uFFFF]`). White space is written out: `\s` differs between engines.
 */
const ASTRAL = '[^\\u0000-\\uFFFF]';
/** Only characters that are not controls (C0, DEL, C1) or unpaired surrogates. */
export const SAFE_ID_PATTERN = new RegExp(`^(?:[\\u0020-\\u007E\\u00A0-\\uD7FF\\uE000-\\uFFFF]|${ASTRAL})+$`, 'u');
/** The safe characters JavaScript's `\s` (and `trim`) calls white space; the rest of `\s` are controls. */
const BLANK = '[\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';
/** What those characters spell that is no id: blank, `.` or `..` (a path resolves them away). */
export const NOT_AN_ID_PATTERN = new RegExp(`^(?:\\.\\.?|${BLANK}+)$`, 'u');

export const SAFE_ID_RULE = `1 to ${SAFE_ID_MAX_CHARS} characters, not blank, not . or .., without control characters (NUL included) or unpaired surrogates`;

export const SafeId = z
  .string()
  .min(1, { message: `must be ${SAFE_ID_RULE}` })
  .max(SAFE_ID_MAX_CHARS, { message: `must be ${SAFE_ID_RULE}` })
  .regex(SAFE_ID_PATTERN, { message: `must be ${SAFE_ID_RULE}` })
  .refine((id) => !NOT_AN_ID_PATTERN.test(id), { message: `must be ${SAFE_ID_RULE}` })
  .meta({
    description: `An id: ${SAFE_ID_RULE}; percent-encoded in paths`,
    not: { pattern: NOT_AN_ID_PATTERN.source },
  });

/**
 * An id as a request header carries it: the same rule, in the characters a header value can hold
 * (visible ASCII and Latin-1; HTTP drops white space around a value, and clients refuse to send
 * it leading).
 */
export const SAFE_HEADER_ID_PATTERN = /^[\u0021-\u007E\u00A1-\u00FF][\u0020-\u007E\u00A0-\u00FF]*$/;
export const SafeHeaderId = z
  .string()
  .max(SAFE_ID_MAX_CHARS, { message: `must be ${SAFE_ID_RULE}` })
  .regex(SAFE_HEADER_ID_PATTERN, { message: `must be ${SAFE_ID_RULE}, in visible ASCII or Latin-1` })
  .refine((id) => !NOT_AN_ID_PATTERN.test(id), { message: `must be ${SAFE_ID_RULE}` })
  .meta({ description: `An id: ${SAFE_ID_RULE}`, not: { pattern: NOT_AN_ID_PATTERN.source } });

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
