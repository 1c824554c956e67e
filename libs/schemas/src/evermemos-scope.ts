/**
 * Whose memories an EverMemOS read covers, from its `group_id` and `user_id`: EverMemOS's words
 * for "any" and "none", the rule that refuses the pairs naming nobody, and that rule as the
 * document states it, so that a pair the document calls valid is one the server takes.
 */

/** EverMemOS's word for "any" (its MAGIC_ALL): a filter with this value filters nothing. */
export const MAGIC_ALL = '__all__';

/** Whose memories a read covers, once EverMemOS's "any" and "none" values are read. */
export interface EverMemOsScope {
  /** undefined: every group the caller may read. */
  readonly conversationId?: string | undefined;
  /** undefined: anyone; null: no one in particular (a group's narrative). */
  readonly userId?: string | null | undefined;
}

/**
 * The scope a list or search names, or the reason it names none. A message without a group is
 * stored as its sender's private chat (`private:<sender>`), so "no group" with a user is that chat.
 */
export function everMemOsScope(
  groupId: string | null | undefined,
  userId: string | null | undefined,
  /** EverMemOS's own rule: a group or a user must be named (memstream's reads across groups need not). */
  nameOne = false,
): EverMemOsScope | { refusal: string } {
  const anyUser = userId === undefined || userId === MAGIC_ALL;
  const anyGroup = groupId === undefined || groupId === MAGIC_ALL;
  if (anyUser && anyGroup && (nameOne || userId === MAGIC_ALL || groupId === MAGIC_ALL))
    return { refusal: 'user_id and group_id cannot both be MAGIC_ALL ("__all__"): name a group or a user' };
  const user = anyUser ? undefined : userId === null || userId === '' ? null : userId;
  if (anyGroup) return { userId: user };
  if (groupId === null || groupId === '') {
    if (typeof user !== 'string')
      return {
        refusal: 'group_id null or "" means no group, a private chat, which is named by its sender: give user_id',
      };
    return { conversationId: `private:${user}`, userId: user };
  }
  return { conversationId: groupId, userId: user };
}

type JsonSchema = Record<string, unknown>;

const NAMES: JsonSchema = { type: 'string', minLength: 1, not: { enum: [MAGIC_ALL] } };
const ABSENT: JsonSchema = { not: {} };
const oneOfValues = (...values: (string | null)[]): JsonSchema => ({ enum: values });
const pair = (group: JsonSchema, user: JsonSchema, required: string[]): JsonSchema => ({
  properties: { group_id: group, user_id: user },
  required,
});

/**
 * everMemOsScope's rule as JSON Schema over an object holding `group_id` and `user_id`: the pairs
 * it takes, one alternative each, so that a generator draws valid pairs directly (Schemathesis
 * found a search naming neither refused, as EverMemOS refuses it). In a JSON body null is a value
 * ("none"); a query string cannot carry one, so there a null is the parameter left out.
 */
export function everMemOsScopeRule(where: 'body' | 'query', nameOne: boolean): JsonSchema {
  const none = where === 'body' ? oneOfValues('', null) : oneOfValues('');
  const absent = where === 'body' ? ABSENT : { anyOf: [ABSENT, { type: 'null' }] };
  const anyGroup = { anyOf: [absent, oneOfValues(MAGIC_ALL)] };
  return {
    anyOf: [
      // every group the caller may read (memstream's own reads; EverMemOS's search refuses it)
      ...(nameOne ? [] : [pair(absent, absent, [])]),
      // a group, anyone or someone in it
      pair(NAMES, {}, ['group_id']),
      // someone, or no one in particular, in any group
      pair(anyGroup, { anyOf: [NAMES, none] }, ['user_id']),
      // someone's private chat
      pair(none, NAMES, ['group_id', 'user_id']),
    ],
  };
}
