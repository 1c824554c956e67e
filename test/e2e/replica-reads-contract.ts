import { randomUUID } from 'node:crypto';
import { isAccepted, MemstreamError } from '@memstream/client';
import { callers } from './client/callers.js';

/** Rounds per lane, and lanes at once: each read starts while the other lanes' writes are being stored. */
const ROUNDS = 6;
const LANES = 4;

const wordOf = () => `rep${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** The status a call was refused with, or 0 if it was answered. */
async function refusal(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
    return 0;
  } catch (err) {
    if (err instanceof MemstreamError) return err.status;
    throw err;
  }
}

/**
 * Writes, then at once reads and searches, in LANES lanes, each lane reading through one of the
 * read APIs in turn: every write answered 200 (a held EverMemOS write, an ARK batch, KAOS events,
 * memory-service messages), every grant, revocation and delete must be what the very first read
 * after its answer sees, whichever read API and replica serves it. Resolves with what was missed
 * and how many checks ran.
 */
export async function checkReplicaReads(
  gateway: string,
  readApis: readonly string[],
): Promise<{ misses: string[]; checks: number }> {
  const misses: string[] = [];
  let checks = 0;
  const expect = (what: string, ok: boolean) => {
    checks++;
    if (!ok) misses.push(what);
  };
  const owner = callers({ baseUrl: readApis[0]!, gatewayUrl: gateway });
  const shared = await owner.alice.memoryService.user.create({ title: 'replica reads' });

  const lane = async (n: number) => {
    const group = `replica_${n}_${randomUUID().slice(0, 8)}`;
    const kaosSession = `kaos_${group}`;
    let at = `lane ${n}`;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const reader = callers({ baseUrl: readApis[(n + round) % readApis.length]!, gatewayUrl: gateway });
        at = `lane ${n} round ${round}`;
        const word = wordOf();

        const id = `m_${n}_${round}`;
        const written = await reader.agent.evermemos.write({
          group_id: group,
          message_id: id,
          create_time: new Date().toISOString(),
          sender: 'u1',
          content: `Round ${round} is about ${word}.`,
        });
        expect(`${at}: the EverMemOS write was held until stored`, !isAccepted(written));
        const [listed, found] = await Promise.all([
          reader.agent.evermemos.list({ group_id: group, limit: 100 }),
          reader.agent.evermemos.search({ query: word, group_id: group, retrieve_method: 'keyword', top_k: 5 }),
        ]);
        expect(
          `${at}: EverMemOS list`,
          listed.result.memories.some((m) => 'message_id' in m && m.message_id === id),
        );
        expect(
          `${at}: EverMemOS keyword search`,
          found.result.memories.some((h) => h.id === id),
        );

        const queryId = `q_${n}_${round}`;
        await reader.agent.ark.postMessages({
          session_id: group,
          query_id: queryId,
          messages: [{ role: 'user', content: `ARK ${word}` }],
        });
        const ark = await reader.agent.ark.listMessages({ session_id: group, limit: 1000 });
        expect(
          `${at}: ARK list`,
          ark.messages.some((m) => m.query_id === queryId),
        );

        const eventId = `evt_${n}_${round}`;
        if (round === 0) await reader.agent.kaos.createSession({ session_id: kaosSession, user_id: 'u1' });
        await reader.agent.kaos.addEvents(kaosSession, {
          event_id: eventId,
          event_type: 'user_message',
          content: word,
        });
        const events = await reader.agent.kaos.sessionEvents(kaosSession);
        expect(
          `${at}: KAOS session events`,
          events.events.some((e) => e.event_id === eventId),
        );

        const message = await reader.alice.memoryService.user.appendMessage(shared.id, {
          content: `Lane ${n}: ${word}`,
        });
        const [page, hits] = await Promise.all([
          reader.alice.memoryService.user.listMessages(shared.id, { limit: 200 }),
          reader.alice.memoryService.user.search({ query: word, topK: 5 }),
        ]);
        expect(
          `${at}: memory-service list`,
          page.data.some((m) => m.id === message.id),
        );
        expect(
          `${at}: memory-service search`,
          hits.data.some((h) => h.message.id === message.id),
        );

        // Access: a grant is usable at once, and a revoked one is refused at once.
        const mine = await reader.alice.memoryService.user.create({ title: `${at} private` });
        await reader.alice.memoryService.user.share(mine.id, 'bob', 'reader');
        expect(`${at}: bob reads once shared`, (await refusal(() => reader.bob.memoryService.user.get(mine.id))) === 0);
        await reader.alice.memoryService.user.revokeMembership(mine.id, 'bob');
        expect(
          `${at}: bob refused once revoked`,
          (await refusal(() => reader.bob.memoryService.user.get(mine.id))) >= 400,
        );
        await reader.alice.memoryService.user.delete(mine.id);
        expect(
          `${at}: a deleted conversation is gone`,
          (await refusal(() => reader.alice.memoryService.user.get(mine.id))) === 404,
        );
      }
    } catch (err) {
      // a read answering 404 for what was written, and answered, before it: it missed that write
      if (!(err instanceof MemstreamError) || err.status !== 404) throw err;
      expect(`${at}: a read answered 404 (${err.message})`, false);
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, n) => lane(n)));
  return { misses, checks };
}
