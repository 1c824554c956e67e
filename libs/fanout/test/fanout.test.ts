import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { MemoryFanout, RedisFanout, type Fanout } from '@memstream/fanout';
import { infra, uniqueName, waitFor } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

const implementations: Array<[string, () => { a: Fanout; b: Fanout }]> = [
  ['in-process', () => { const f = new MemoryFanout(); return { a: f, b: f }; }],
  // two clients stand for two replicas: what one publishes, the other's listeners hear
  ['Redis', () => ({ a: new RedisFanout(infra().redisUrl, log), b: new RedisFanout(infra().redisUrl, log) })],
];

for (const [name, make] of implementations) {
  test(`${name} fan-out: listeners hear what is published on their channel until they unsubscribe`, async (t) => {
    const { a, b } = make();
    t.after(async () => { await a.close(); if (b !== a) await b.close(); });
    const channel = uniqueName('ch');
    const heard: string[] = [];
    const other: string[] = [];
    const unsubscribe = await b.subscribe(channel, (m) => heard.push(m));
    await b.subscribe(uniqueName('other'), (m) => other.push(m));
    await a.publish(channel, 'one');
    await a.publish(channel, 'two');
    await waitFor('two messages', async () => heard.length === 2);
    await unsubscribe();
    await a.publish(channel, 'three');
    await a.publish(channel, 'four');
    await new Promise((r) => setTimeout(r, 100)); // nothing should arrive; give it the chance
    assert.deepEqual(heard, ['one', 'two']);
    assert.deepEqual(other, []);
  });
}
