import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { after, type TestContext } from 'node:test';
import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';

/**
 * Connection settings of the real services the suite runs against. scripts/test.sh starts them
 * (or keeps what KAFKA_BROKERS, DATABASE_URL and REDIS_URL already point at) before any test runs.
 */
export function infra(): { kafkaBrokers: string[]; databaseUrl: string; redisUrl: string } {
  const { KAFKA_BROKERS, DATABASE_URL, REDIS_URL } = process.env;
  if (!KAFKA_BROKERS || !DATABASE_URL || !REDIS_URL) {
    throw new Error('KAFKA_BROKERS, DATABASE_URL and REDIS_URL must be set: run the suite with `npm test`');
  }
  return { kafkaBrokers: KAFKA_BROKERS.split(','), databaseUrl: DATABASE_URL, redisUrl: REDIS_URL };
}

/** A short unique suffix, so each test gets its own topics, groups and database. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/**
 * Creates a fresh database on the test server and drops it when the test ends. With
 * TEST_DATABASE_SETUP set, that shell command then runs with the database's URL as its argument,
 * before any test uses it: a server that needs more than CREATE DATABASE for a usable database (a
 * Citus coordinator: the database on every worker, its extensions, the workers added) is made
 * ready there (docs/development.md).
 */
export async function freshDatabase(t: TestContext): Promise<string> {
  const admin = infra().databaseUrl;
  const name = uniqueName('t');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  t.after(async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const setup = process.env['TEST_DATABASE_SETUP'];
  if (setup) await promisify(execFile)('/bin/sh', ['-c', `${setup} "$1"`, 'sh', url.toString()], { timeout: 120_000 });
  return url.toString();
}

/** Polls until the condition returns a truthy value; fails with the label after the deadline. */
export async function waitFor<T>(
  label: string,
  condition: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const started = Date.now();
  let delay = 20;
  let lastError: unknown;
  while (Date.now() - started < timeoutMs) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(500, delay * 2);
  }
  throw new Error(`timed out waiting for ${label}${lastError ? `: ${String(lastError)}` : ''}`);
}

/**
 * A unique topic prefix for one test, whose topics are deleted once every test of the file has
 * ended: one broker serves the whole suite, and each partition left behind holds a file open in
 * it (about 20,000 of them exhausted its descriptors late in CI and it stopped serving).
 * Not in the test's own `after`: hooks run in the order they were added, so that one would run
 * before the hooks that stop the test's processes, whose consumers and producers would then
 * create the topics again (the broker creates a topic a client asks about).
 */
export function kafkaTopicPrefix(label: string): string {
  const prefix = `${uniqueName(label)}.`;
  filePrefixes.add(prefix);
  return prefix;
}

const filePrefixes = new Set<string>();
// A hook of the file's root, added as the module loads: it runs after every test of the file and
// their own hooks, so no process of the file is still asking for its topics.
after(async () => {
  if (filePrefixes.size === 0) return;
  const prefixes = [...filePrefixes];
  await deleteTopics((name) => prefixes.some((p) => name.startsWith(p)));
});

/**
 * Deletes the topics that match, on the test broker or the `brokers` given; best effort (a test's
 * result does not depend on it).
 */
export async function deleteTopics(
  match: (name: string) => boolean,
  brokers: string[] = infra().kafkaBrokers,
): Promise<void> {
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter(match);
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
  } catch {
    // the broker may be going away at the end of the suite
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
