import assert from 'node:assert/strict';
import type pg from 'pg';
import { bearer, userToken } from '../../harness/credentials.js';

/**
 * What one scenario of the memory-service's own REST suite (chirino/memory-service, commit
 * 1b5ccae3, `memory-service/src/test/resources/features/*-rest.feature`) works with: who is
 * calling, the conversation in hand, the last answer and the values set along the way. Its steps
 * send what the service's step definitions send. The suite's "Given" steps that write through the
 * service's store directly are made here through the API, as the same person or agent.
 */

/** The suite's agent keys (its test profile's), each ours at the length our keys need. */
export const SUITE_KEYS = {
  'test-agent-key': { clientId: 'test-agent', key: 'test-agent-key-0123456789' },
  'test-agent-key-b': { clientId: 'agent-b', key: 'test-agent-key-b-0123456789' },
} as const;
export type SuiteKey = keyof typeof SUITE_KEYS;

export const SUITE_USERS = ['alice', 'bob', 'charlie', 'dave'] as const;

/**
 * The realm roles the suite's Keycloak gives its users (its test profile: alice is an admin,
 * charlie an auditor), carried in every token as Keycloak carries them, in every feature.
 */
const SUITE_ROLES: Readonly<Record<string, readonly string[]>> = { alice: ['admin'], charlie: ['auditor'] };

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: any;
}

export class World {
  userId: string | null = null;
  apiKey: SuiteKey | null = null;
  conversationId: string | undefined;
  conversationOwner: string | undefined;
  readonly vars = new Map<string, unknown>();
  /** Every conversation the scenario made, for its database checks. */
  readonly made = new Set<string>();
  private answer: Answer | undefined;
  /** The content type of the last answer. */
  contentType = '';

  constructor(
    readonly base: string,
    private readonly db: pg.Client,
  ) {}

  get last(): Answer {
    assert.ok(this.answer, 'no HTTP answer yet');
    return this.answer;
  }

  // ---- who is calling ----

  asUser(userId: string): void {
    this.userId = userId;
    this.apiKey = null;
  }

  /** As the suite does: the agent's key beside the token of its default user, alice. */
  asAgent(key: SuiteKey): void {
    this.userId = 'alice';
    this.apiKey = key;
  }

  private async headersOf(userId: string | null, key: SuiteKey | null): Promise<Record<string, string>> {
    return {
      ...(userId
        ? bearer(await userToken(userId, { claims: { realm_access: { roles: SUITE_ROLES[userId] ?? [] } } }))
        : {}),
      ...(key ? { 'x-api-key': SUITE_KEYS[key].key } : {}),
    };
  }

  // ---- HTTP ----

  /** Calls as the current caller; the answer becomes `last`. */
  async call(method: string, path: string, body?: unknown, query?: Record<string, string | number>): Promise<Answer> {
    this.answer = await this.send(await this.headersOf(this.userId, this.apiKey), method, path, body, query);
    return this.answer;
  }

  /** A call with an Accept header of its own ("I call POST ... with Accept ..."); also sets `contentType`. */
  async callAccepting(accept: string, method: string, path: string, body?: unknown): Promise<Answer> {
    const headers = { ...(await this.headersOf(this.userId, this.apiKey)), accept };
    this.answer = await this.send(headers, method, path, body);
    return this.answer;
  }

  /** The same call `times` at once ("I call POST ... concurrently N times"): every answer. */
  async callConcurrently(times: number, method: string, path: string, body?: unknown): Promise<Answer[]> {
    const headers = await this.headersOf(this.userId, this.apiKey);
    const answers = await Promise.all(Array.from({ length: times }, () => this.send(headers, method, path, body)));
    this.answer = answers[0];
    return answers;
  }

  private async send(
    headers: Record<string, string>,
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number>,
  ): Promise<Answer> {
    const qs = query
      ? `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`
      : '';
    const res = await fetch(`${this.base}${path}${qs}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    this.contentType = res.headers.get('content-type') ?? '';
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, body: parsed };
  }

  /** A call as someone else, leaving `last` alone (for the steps the suite makes through its store). */
  private async behind(userId: string, key: SuiteKey | null, method: string, path: string, body?: unknown) {
    const out = await this.send(await this.headersOf(userId, key), method, path, body);
    assert.ok(
      out.status < 300,
      `${method} ${path} as ${userId}${key ? ` with ${key}` : ''}: ${out.status} ${out.text}`,
    );
    return out;
  }

  /** A read as alice, the suite's admin, leaving `last` alone (its checks that look through the admin API). */
  async aliceReads(path: string, query?: Record<string, string | number>): Promise<Answer> {
    const out = await this.send(await this.headersOf('alice', null), 'GET', path, undefined, query);
    assert.equal(out.status, 200, `GET ${path} as alice: ${out.status} ${out.text}`);
    return out;
  }

  conv(id = this.conversationId): string {
    assert.ok(id, 'no conversation in hand');
    return `/v1/conversations/${encodeURIComponent(id)}`;
  }

  // ---- what the suite does through its store ----

  /** "I have a conversation with title": made by the current user. */
  async haveConversation(title: string): Promise<void> {
    const out = await this.behind(this.userId!, null, 'POST', '/v1/conversations', { title });
    this.holdConversation(out.body.id, this.userId!);
  }

  /** "there is a conversation owned by" (with a title): made by that person. */
  async conversationOwnedBy(owner: string, title = `Owned by ${owner}`): Promise<void> {
    const out = await this.behind(owner, null, 'POST', '/v1/conversations', { title });
    this.holdConversation(out.body.id, owner);
  }

  /** "the conversation owned by ... has a message": that person's message in their conversation. */
  async ownerWrites(owner: string, conversationId: string, text: string): Promise<void> {
    await this.behind(owner, null, 'POST', `${this.conv(conversationId)}/messages`, {
      content: [{ type: 'text', text }],
    });
  }

  /** "the conversation owned by ... is deleted": deleted by that person. */
  async ownerDeletes(owner: string, conversationId: string): Promise<void> {
    await this.behind(owner, null, 'DELETE', this.conv(conversationId));
  }

  /** "the membership for user ... was removed": by the conversation's owner. */
  async ownerRemovesMember(userId: string): Promise<void> {
    await this.behind(
      this.conversationOwner!,
      null,
      'DELETE',
      `${this.conv()}/memberships/${encodeURIComponent(userId)}`,
    );
  }

  /** "the conversation has a pending ownership transfer to user": offered by its owner. */
  async ownerOffersTransfer(newOwnerUserId: string): Promise<void> {
    await this.behind(this.conversationOwner!, null, 'POST', `${this.conv()}/transfer-ownership`, { newOwnerUserId });
  }

  /** The group of a conversation as our schema keeps it (the suite reads conversation_group_id). */
  async groupOf(conversationId = this.conversationId): Promise<string> {
    const rows = await this.sql<{ group_id: string }>(
      'SELECT COALESCE(group_id, id) AS group_id FROM conversations WHERE id = $1',
      [conversationId],
    );
    assert.ok(rows[0], `no conversation ${conversationId} in the database`);
    return rows[0].group_id;
  }

  holdConversation(id: string, owner: string): void {
    this.conversationId = id;
    this.conversationOwner = owner;
    this.made.add(id);
    this.vars.set('conversationId', id);
  }

  /** "the conversation has a message": a person's message, by the current user (the agent's default user). */
  async hasMessage(text: string): Promise<void> {
    await this.behind(this.userId!, null, 'POST', `${this.conv()}/messages`, {
      content: [{ type: 'text', text }],
    });
  }

  /** "the conversation has a message ... in channel" and "a memory message ... with epoch": the current agent's. */
  async hasAgentMessage(text: string, channel: string, epoch?: number): Promise<void> {
    await this.behind(this.userId!, this.apiKey, 'POST', `${this.conv()}/messages`, {
      content: [{ type: 'text', text }],
      channel: channel.toLowerCase(),
      ...(epoch === undefined ? {} : { epoch }),
    });
  }

  /** "the conversation is shared with user ... with access level": by its owner. */
  async sharedByOwner(userId: string, accessLevel: string): Promise<void> {
    await this.behind(this.conversationOwner!, null, 'POST', `${this.conv()}/memberships`, {
      userId,
      accessLevel: accessLevel.toLowerCase(),
    });
  }

  // ---- checks, as the suite's "Then" steps make them ----

  status(expected: number): void {
    assert.equal(this.last.status, expected, `status ${this.last.status}, expected ${expected}: ${this.last.text}`);
  }

  errorCode(code: string): void {
    assert.equal(this.last.body?.code, code, `error code: ${this.last.text}`);
  }

  /** "the response body should be json": the whole body equals the expectation (made from the body for its ${...}). */
  bodyIs(expected: (body: any) => unknown): void {
    assert.deepEqual(this.last.body, expected(this.last.body), `body: ${this.last.text}`);
  }

  contains(text: string): void {
    assert.ok(this.last.text.includes(text), `body should contain ${text}: ${this.last.text}`);
  }

  lacks(text: string): void {
    assert.ok(!this.last.text.includes(text), `body should not contain ${text}: ${this.last.text}`);
  }

  /** A value at a path (`data[0].id`), undefined where the body has none (the suite's JsonPath gives null). */
  at(path: string): unknown {
    return path
      .split(/\.|\[(\d+)\]/)
      .filter((p) => p !== undefined && p !== '')
      .reduce<unknown>(
        (node, part) => (node == null ? undefined : (node as Record<string, unknown>)[part]),
        this.last.body,
      );
  }

  /** "the response body <path> should be <value>"; `null` also matches a field left out. */
  fieldIs(path: string, expected: unknown): void {
    const got = this.at(path);
    if (expected === null) assert.ok(got == null, `${path} should be null: ${this.last.text}`);
    else assert.deepEqual(got, expected, `${path}: ${this.last.text}`);
  }

  present(path: string): void {
    assert.ok(this.at(path) != null, `${path} should be there: ${this.last.text}`);
  }

  set(name: string, path: string): string {
    const value = this.at(path);
    assert.ok(value != null, `${path} is missing: ${this.last.text}`);
    this.vars.set(name, value);
    return value as string;
  }

  get(name: string): string {
    assert.ok(this.vars.has(name), `no ${name} set`);
    return this.vars.get(name) as string;
  }

  count(expected: number, path = 'data'): void {
    const list = this.at(path);
    assert.ok(Array.isArray(list), `${path} is not a list: ${this.last.text}`);
    assert.equal(list.length, expected, `${path} has ${list.length}, expected ${expected}: ${this.last.text}`);
  }

  atLeast(expected: number, path = 'data'): void {
    const list = this.at(path);
    assert.ok(Array.isArray(list) && list.length >= expected, `${path}: at least ${expected}: ${this.last.text}`);
  }

  /** "message at index N should have content": the first block's text. */
  textAt(index: number, expected: string, path = 'data'): void {
    assert.equal(this.at(`${path}[${index}].content[0].text`), expected, this.last.text);
  }

  /** The suite's database checks, asked of our schema. */
  async sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(text, params)).rows;
  }
}
