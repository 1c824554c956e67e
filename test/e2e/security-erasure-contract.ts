import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import { bearer, userToken } from '../../harness/credentials.js';
import type { SecurityCheck } from './security-callers.js';

const LOOPS = 4;

interface Reply {
  readonly status: number;
  readonly body: any;
}

async function http(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) } as Reply;
}

/** One share mallory sent, with when it left and when its answer came (this process's clock). */
interface Share {
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly reply: Reply;
}

/**
 * Issue 49, item 11: while an admin erases a person, mallory shares her own conversations with
 * that person and revokes the shares, in four loops at once, as fast as the server answers. The
 * erasure completes anyway, and every share that reached the server while the erasure was open is
 * refused (409, memory-service's error shape): nothing others write about a person holds back the
 * person's erasure, and nobody adds to what is being erased.
 */
export const erasureFloodCheck: SecurityCheck = async (base, who, prefix) => {
  const person = `${prefix}-alice6`;
  const as = bearer(await userToken(person));
  const made = async (headers: Record<string, string>, title: string): Promise<string> => {
    const r = await http(base, 'POST', '/v1/conversations', headers, { title });
    assert.equal(r.status, 201, `${title}: ${JSON.stringify(r.body)}`);
    return r.body.id as string;
  };
  // Something of the person's own to erase: a conversation with a message.
  const own = await made(as, `${prefix} alice6's own`);
  const said = await http(base, 'POST', `/v1/conversations/${own}/messages`, as, {
    content: [{ type: 'text', text: 'a note of my own' }],
  });
  assert.equal(said.status, 201, JSON.stringify(said.body));
  const mallorys = await Promise.all(Array.from({ length: LOOPS }, (_, i) => made(who.mallory, `${prefix} m${i}`)));

  const shares: Share[] = [];
  const rounds = new Array<number>(LOOPS).fill(0);
  let stop = false;
  const flood = mallorys.map(async (conversationId, i) => {
    const members = `/v1/conversations/${conversationId}/memberships`;
    while (!stop) {
      const sentAt = Date.now();
      const reply = await http(base, 'POST', members, who.mallory, { userId: person, accessLevel: 'reader' });
      shares.push({ sentAt, answeredAt: Date.now(), reply });
      if (reply.status === 201) {
        const revoked = await http(base, 'DELETE', `${members}/${encodeURIComponent(person)}`, who.mallory);
        assert.ok([204, 404].includes(revoked.status), `revoke: ${revoked.status} ${JSON.stringify(revoked.body)}`);
      } else assert.ok([202, 409].includes(reply.status), `share: ${reply.status} ${JSON.stringify(reply.body)}`);
      rounds[i]!++;
    }
  });
  try {
    await waitFor('every loop shared and revoked once', async () => rounds.every((n) => n > 0), 30_000);
    const asked = await http(base, 'POST', '/v1/admin/erasures', who.admin, {
      userId: person,
      justification: `${prefix}: erased under another person's flood`,
    });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const acceptedAt = Date.now();
    let openUntil = acceptedAt;
    const receipt = await waitFor(
      'the erasure ended under the flood',
      async () => {
        const seenAt = Date.now();
        const r = (await http(base, 'GET', `/v1/admin/erasures/${asked.body.id}`, who.admin)).body;
        if (r.status === 'completed' || r.status === 'failed') return r;
        openUntil = seenAt; // the job was open from the request on, at least until this poll left
        return undefined;
      },
      60_000,
    );
    assert.equal(receipt.status, 'completed', `the erasure completed: ${JSON.stringify(receipt)}`);
    assert.ok('reason' in receipt, 'the receipt says why a pass fell short, if one did');
    assert.ok(receipt.counts['memory-service'].postgres.conversationGroups >= 1, "the person's conversation went");
    const during = shares.filter((s) => s.sentAt >= acceptedAt && s.answeredAt <= openUntil);
    assert.ok(during.length > 0, 'mallory kept sharing while the erasure ran');
    for (const s of during) {
      assert.equal(s.reply.status, 409, `a share while the erasure ran: ${JSON.stringify(s.reply.body)}`);
      assert.equal(s.reply.body?.code, 'conflict');
      assert.match(s.reply.body?.error, /being erased/);
    }
  } finally {
    stop = true;
    await Promise.all(flood);
  }
};
