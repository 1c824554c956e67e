import assert from 'node:assert/strict';
import { credentialsFor } from '../../harness/credentials.js';

/** Small typed calls against the EverMemOS API of a running memstream, for the end-to-end tests. */
export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

export async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply<T>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...credentialsFor(base), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
}

export interface StoredMemory {
  memory_type: string;
  message_id: string;
  group_id: string;
  group_name?: string;
  user_id: string;
  sender_name: string;
  timestamp: string;
  content: string;
  refer_list: string[];
  sequence: number;
}

export async function messagesOf(
  base: string,
  groupId: string,
): Promise<{ memories: StoredMemory[]; total_count: number }> {
  const res = await call<{ result: { memories: StoredMemory[]; total_count: number } }>(
    base,
    'GET',
    `/api/v1/memories?group_id=${encodeURIComponent(groupId)}&limit=500`,
  );
  assert.equal(res.status, 200);
  return res.body.result;
}

export async function requestStatus(
  base: string,
  requestId: string,
): Promise<Reply<{ status: string; code?: string; result: Record<string, unknown> }>> {
  return call(base, 'GET', `/api/v1/stats/request?request_id=${encodeURIComponent(requestId)}`);
}

/**
 * Every stored message of a group, paged 500 at a time (newest first). A message stored between
 * two pages shifts the later ones, so the pages are read again until `total_count` held still.
 */
export async function everyMessageOf(base: string, groupId: string): Promise<StoredMemory[]> {
  for (;;) {
    const all: StoredMemory[] = [];
    let total = -1;
    let shifted = false;
    for (let offset = 0; total < 0 || offset < total; offset += 500) {
      const res = await call<{ result: { memories: StoredMemory[]; total_count: number } }>(
        base,
        'GET',
        `/api/v1/memories?group_id=${encodeURIComponent(groupId)}&limit=500&offset=${offset}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (total >= 0 && res.body.result.total_count !== total) shifted = true;
      total = res.body.result.total_count;
      all.push(...res.body.result.memories);
      if (res.body.result.memories.length === 0) break;
    }
    if (!shifted && all.length === total) return all;
  }
}
