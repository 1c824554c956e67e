/**
 * `npm run bench:shredding`: what crypto-shredding (issue 30) would cost the write path. In one
 * process on the real Kafka, the same messages are published three ways, in alternating rounds:
 * `raw` (records serialized beforehand: the bus and broker alone), `plain` (the gateway's steps:
 * envelope, schema check, serialization, publish with acks=all) and `sealed` (the same, with the
 * event's `data` encrypted under the sender's own key, kept in PostgreSQL and cached). Prints
 * each pass's throughput and CPU per message (medians over the rounds), the encryption alone, then
 * every figure as one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { KafkaBus, serializeEvent, type OutgoingRecord } from '@memstream/bus';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { TOPICS, allTopics, type GroupChatMessageReceived } from '@memstream/schemas';
import { connect, createDatabase } from './lib/database.js';
import { positiveInt } from './lib/flags.js';
import { deleteTopicsWithPrefix } from './lib/kafka-load.js';
import { PersonKeys, sealData } from './lib/sealed-payloads.js';
import { round } from './lib/stats.js';
import { Teardowns } from './lib/teardowns.js';
import { Workload } from './lib/workload.js';

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
    people: { type: 'string', default: '50' },
  },
});
const N = positiveInt('messages', flags.messages);
const ROUNDS = positiveInt('rounds', flags.rounds);
const C = positiveInt('concurrency', flags.concurrency);

const { KAFKA_BROKERS, DATABASE_URL } = process.env;
if (!KAFKA_BROKERS || !DATABASE_URL) {
  console.error('KAFKA_BROKERS and DATABASE_URL must be set: run it as `npm run bench:shredding`');
  process.exit(2);
}
const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const prefix = `bench_${runId}.`;
const teardowns = new Teardowns();
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

type Pass = 'raw' | 'plain' | 'sealed';
interface Figures {
  messages_per_s: number;
  cpu_us_per_message: number;
}

async function main(): Promise<void> {
  const log = createLogger({ service: 'bench', level: 'warn' });
  const bus = new KafkaBus({
    brokers: KAFKA_BROKERS!.split(','),
    clientId: 'bench-shredding',
    topicPrefix: prefix,
    log,
    defaultPartitions: 4,
    replicationFactor: 1,
    requestTimeoutMs: 30_000,
    metrics: new Metrics(),
  });
  teardowns.push(['topics', () => deleteTopicsWithPrefix(KAFKA_BROKERS!.split(','), prefix)]);
  teardowns.push(['bus', () => bus.close()]);
  await bus.ensureTopics(allTopics());
  const database = await createDatabase(DATABASE_URL!, `bench_${runId}`);
  teardowns.push(['database', database.drop]);
  const db = await connect(database.url);
  teardowns.push(['database client', () => db.end()]);
  const keys = await PersonKeys.create(db);
  const workload = new Workload(runId, 64);
  const people = positiveInt('people', flags.people);
  const messageOf = (pass: string, i: number) => ({ ...workload.message(pass, i), sender: `user_${i % people}` });
  const topic = TOPICS.groupChatInput;

  const eventOf = (pass: string, i: number): GroupChatMessageReceived => ({
    id: randomUUID(),
    type: 'group_chat.message.received',
    occurred_at: new Date().toISOString(),
    correlation_id: randomUUID(),
    source: 'evermemos',
    data: messageOf(pass, i),
  });
  const checked = (event: GroupChatMessageReceived) => {
    if (!topic.schema.safeParse(event).success) throw new Error('the workload breaks the schema');
    return event;
  };
  const recordOf: Record<Pass, (pass: string, i: number) => Promise<OutgoingRecord>> = {
    raw: async () => {
      throw new Error('raw records are made before the clock starts');
    },
    plain: async (pass, i) => serializeEvent(topic, checked(eventOf(pass, i))),
    sealed: async (pass, i) => {
      const event = checked(eventOf(pass, i));
      const sealed = sealData(event, await keys.of(event.data.sender));
      // the key is read before sealing: the group id it is made of is inside `data`
      return serializeEvent({ ...topic, keyOf: () => topic.keyOf(event) }, sealed as never);
    },
  };

  const run = async (pass: Pass, roundNo: number): Promise<Figures> => {
    const name = `${pass}${roundNo}`;
    const prepared =
      pass === 'raw' ? Array.from({ length: N }, (_, i) => serializeEvent(topic, eventOf(name, i))) : undefined;
    let next = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: C }, async () => {
        for (let i = next++; i < N; i = next++) {
          const record = prepared ? prepared[i]! : await recordOf[pass](name, i);
          await bus.publish(topic.name, [record]);
        }
      }),
    );
    const elapsedMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return {
      messages_per_s: round((N * 1000) / elapsedMs),
      cpu_us_per_message: round((cpu.user + cpu.system) / N, 1),
    };
  };

  // warm up the producer, the JIT and the key cache, not counted
  for (const pass of ['raw', 'plain', 'sealed'] as const) await run(pass, 0);
  const rounds: Record<Pass, Figures[]> = { raw: [], plain: [], sealed: [] };
  for (let r = 1; r <= ROUNDS; r++) {
    for (const pass of ['raw', 'plain', 'sealed'] as const) rounds[pass].push(await run(pass, r));
    progress(`round ${r} of ${ROUNDS} done`);
  }
  // Each figure's own median over the rounds: on a shared machine a round's throughput swings with
  // the neighbours' load far more than its CPU per message does.
  const median = (pass: Pass): Figures => {
    const mid = <K extends keyof Figures>(k: K) =>
      rounds[pass].map((f) => f[k]).sort((a, b) => a - b)[Math.floor(rounds[pass].length / 2)]!;
    return { messages_per_s: mid('messages_per_s'), cpu_us_per_message: mid('cpu_us_per_message') };
  };

  // The encryption alone (key cached, no I/O): what sealing adds per message in CPU.
  const events = Array.from({ length: N }, (_, i) => checked(eventOf('solo', i)));
  const cached = await Promise.all(events.map((e) => keys.of(e.data.sender)));
  const s0 = process.cpuUsage();
  for (let i = 0; i < N; i++) JSON.stringify(sealData(events[i]!, cached[i]!));
  const sealCpu = process.cpuUsage(s0);
  const p0 = process.cpuUsage();
  for (let i = 0; i < N; i++) JSON.stringify(events[i]!);
  const plainCpu = process.cpuUsage(p0);

  const report = {
    benchmark: 'shredding',
    messages_per_pass: N,
    rounds: ROUNDS,
    concurrency: C,
    people,
    key_lookups_in_postgres: keys.misses,
    raw: median('raw'),
    plain: median('plain'),
    sealed: median('sealed'),
    seal_alone_cpu_us_per_message: round((sealCpu.user + sealCpu.system - plainCpu.user - plainCpu.system) / N, 2),
    all_rounds: rounds,
  };
  console.log('pass    messages/s   CPU µs/message');
  for (const pass of ['raw', 'plain', 'sealed'] as const) {
    const f = report[pass];
    console.log(
      `${pass.padEnd(7)} ${String(f.messages_per_s).padStart(10)}   ${String(f.cpu_us_per_message).padStart(14)}`,
    );
  }
  console.log(`encryption alone: ${report.seal_alone_cpu_us_per_message} µs CPU per message (key cached)`);
  console.log(JSON.stringify(report));
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => teardowns.run());
