import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT, runCaptured } from './processes.js';

/** The release the trials used; its wheel carries librdkafka with every codec built in. */
const CONFLUENT_KAFKA = 'confluent-kafka==2.16.1';
const VENV = resolve(REPO_ROOT, '.cache/producer-venv');

/**
 * The folder of Kafka's jars, as scripts/infra/kafka.sh lays it out (kafka-clients and its codecs
 * among them), resolved from Maven Central the same way when the broker is someone else's.
 */
export async function kafkaJars(): Promise<string> {
  const cache =
    process.env.MEMSTREAM_CACHE_DIR ??
    (process.getuid?.() === 0
      ? '/var/cache/memstream'
      : join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'memstream'));
  const jars = join(cache, 'kafka-3.9.1', 'jars');
  if (existsSync(join(jars, '.complete'))) return jars;
  const pom = resolve(REPO_ROOT, 'scripts/infra/kafka/pom.xml');
  const run = await runCaptured('mvn', [
    '-q',
    '-B',
    '-f',
    pom,
    'dependency:copy-dependencies',
    '-DincludeScope=runtime',
    `-DoutputDirectory=${jars}`,
  ]);
  if (run.code !== 0)
    throw new Error(`resolving Kafka's jars failed: ${run.stdout.slice(-2000)}${run.stderr.slice(-2000)}`);
  writeFileSync(join(jars, '.complete'), '');
  return jars;
}

let venvReady: Promise<string> | undefined;

/**
 * A python with confluent-kafka (librdkafka) installed: a virtual environment of its own under
 * .cache, made from PyPI on first use (once per process).
 */
export function confluentKafkaPython(): Promise<string> {
  venvReady ??= (async () => {
    const bin = join(VENV, 'bin', 'python');
    if (existsSync(bin) && (await runCaptured(bin, ['-c', 'import confluent_kafka'])).code === 0) return bin;
    rmSync(VENV, { recursive: true, force: true });
    for (const [command, args] of [
      ['python3', ['-m', 'venv', VENV]],
      [join(VENV, 'bin', 'pip'), ['install', '-q', '--disable-pip-version-check', CONFLUENT_KAFKA]],
    ] as const) {
      const run = await runCaptured(command, args);
      if (run.code !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
    }
    return bin;
  })();
  return venvReady;
}
