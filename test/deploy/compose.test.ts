import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import {
  API_CREDENTIALS,
  AUTH_SETTINGS,
  LOOPBACK_HOSTS,
  OPEN_PATH,
  ROOT,
  effectiveConfig,
  envProblems,
  exposureOf,
  isApiProcess,
  longRunningServices,
} from './catalogue.js';
import { sentinelOptionsOf } from '@memstream/fanout';
import { parseEdgeConfig } from '../../harness/nginx-conf.js';
import { validateCompose } from './tools.js';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: Record<string, { condition?: string }> | string[];
  restart?: string;
  ports?: (string | { published?: string | number; target?: number })[];
  volumes?: (string | { source?: string; target?: string })[];
  stop_grace_period?: string;
  configs?: (string | { source: string; target?: string })[];
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  configs?: Record<string, { content?: string; file?: string }>;
};
const services = Object.entries(compose.services);

/**
 * The shell the tests run compose from: only what the file requires (`${VAR:?message}`) is set,
 * with test values; everything optional takes its default.
 */
const SHELL: Record<string, string> = {
  AUTH_API_KEYS: 'test-agent:test-only-key-0123456789',
  AUTH_JWT_SECRET: 'test-only-hs256-secret-0123456789abcdef',
};

/** `${VAR}`, `${VAR:-default}` and `${VAR:?message}` as compose reads them from a shell, refusing as it does. */
function interpolate(value: string, shell: Record<string, string>): string {
  const reference = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g;
  return value.replace(reference, (whole, name: string, colon: string, op: string | undefined, arg: string) => {
    if (whole === '$$') return '$';
    const set = shell[name];
    const present = set !== undefined && (colon !== ':' || set !== '');
    if (present) return set;
    if (op === '?') throw new Error(`compose refuses to start: required variable ${name} is missing a value: ${arg}`);
    return op === '-' ? arg : '';
  });
}

/** The environment as written in the file, before compose substitutes the shell's variables. */
function rawEnvironmentOf(service: ComposeService): Record<string, string> {
  const raw = service.environment ?? {};
  const pairs = Array.isArray(raw)
    ? raw.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] as const)
    : Object.entries(raw).map(([key, value]) => [key, value === null ? '' : String(value)] as const);
  return Object.fromEntries(pairs);
}

function environmentOf(service: ComposeService, shell: Record<string, string> = SHELL): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rawEnvironmentOf(service)).map(([key, value]) => [key, interpolate(value, shell)]),
  );
}

const isMemstream = (s: ComposeService) => s.build !== undefined || (s.image ?? '').startsWith('memstream:');
/** The process a memstream container runs (scripts/processes.js): the image's first argument, all-in-one without one. */
const memstreamServiceOf = (s: ComposeService) =>
  (Array.isArray(s.command) ? s.command[0] : s.command?.split(/\s+/)[0]) ?? 'all-in-one';
const isOneShot = (s: ComposeService) => s.restart === 'no';
const memstreamContainers = services.filter(([, s]) => isMemstream(s));

/** The arguments of a container's command. */
const argsOf = (s: ComposeService) => (Array.isArray(s.command) ? s.command : (s.command ?? '').split(/\s+/));

/** The hosts a connection setting reaches: a URL's host, or each sentinel of a `redis+sentinel://` URL. */
function hostsOf(url: string): string[] {
  const sentinel = sentinelOptionsOf(url);
  return sentinel ? (sentinel.sentinels ?? []).map((s) => String(s.host)) : [new URL(url).hostname];
}

function seconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  assert.ok(parts.length > 0, `not a duration: ${duration}`);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 } as const;
  return parts.reduce((sum, m) => sum + Number(m[1]) * unit[m[2] as keyof typeof unit], 0);
}

test('docker-compose.yml is a valid Compose file, unknown fields included', () => {
  const verdict = validateCompose(compose);
  assert.ok(verdict.valid, verdict.message);
});

test('every long-running container has a healthcheck; the others are one-shot jobs that something waits for', () => {
  for (const [name, service] of services) {
    if (isOneShot(service)) {
      const awaited = services.some(([, other]) => {
        const deps = other.depends_on;
        return deps !== undefined && !Array.isArray(deps) && deps[name]?.condition === 'service_completed_successfully';
      });
      assert.ok(awaited, `${name} runs once (restart: "no") but nothing waits for it to complete`);
      continue;
    }
    assert.ok(
      service.healthcheck?.test !== undefined && service.healthcheck.disable !== true,
      `${name} has no healthcheck`,
    );
  }
});

test('every image is pinned to a version', () => {
  for (const [name, service] of services) {
    assert.ok(service.image, `${name} names no image`);
    const image = service.image;
    const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
    assert.ok(
      tag !== undefined && tag !== '' && tag !== 'latest',
      `${name}: image ${image} is not pinned (no tag, or latest)`,
    );
  }
});

test('depends_on waits for health, or for completion of a one-shot job, of services that exist', () => {
  for (const [name, service] of services) {
    if (service.depends_on === undefined) continue;
    assert.ok(
      !Array.isArray(service.depends_on),
      `${name}: depends_on as a list only waits for a start, not for health`,
    );
    for (const [dependency, { condition }] of Object.entries(service.depends_on)) {
      const target = compose.services[dependency];
      assert.ok(target, `${name} depends on ${dependency}, which is not defined`);
      const expected = isOneShot(target) ? 'service_completed_successfully' : 'service_healthy';
      assert.equal(condition, expected, `${name} -> ${dependency}`);
    }
  }
});

test('every memstream service of the distributed mode runs in compose', () => {
  const running = new Set(memstreamContainers.map(([, s]) => memstreamServiceOf(s)));
  for (const service of longRunningServices()) {
    assert.ok(running.has(service), `${service} has no container in docker-compose.yml`);
  }
  assert.ok(running.has('setup'), 'no setup job creates the topics and applies the migrations');
});

test('each memstream container is given every setting its service needs and none it does not read', () => {
  assert.ok(memstreamContainers.length >= 5);
  for (const [name, service] of memstreamContainers) {
    const problems = envProblems(memstreamServiceOf(service), environmentOf(service));
    assert.deepEqual(problems, [], `${name}:\n${problems.join('\n')}`);
  }
});

test('every memstream container uses the brokers, topic prefix and partitions the setup job created', () => {
  const setup = memstreamContainers.find(([, s]) => memstreamServiceOf(s) === 'setup');
  assert.ok(setup);
  const pick = (config: Record<string, unknown>) => ({
    brokers: config['KAFKA_BROKERS'],
    prefix: config['KAFKA_TOPIC_PREFIX'],
    partitions: config['KAFKA_TOPIC_PARTITIONS'],
  });
  const planned = pick(effectiveConfig('setup', environmentOf(setup[1])));
  for (const [name, service] of memstreamContainers) {
    assert.deepEqual(pick(effectiveConfig(memstreamServiceOf(service), environmentOf(service))), planned, name);
  }
});

test('the addresses memstream containers are given are services of this file', () => {
  for (const [name, service] of memstreamContainers) {
    const env = environmentOf(service);
    const hosts = [
      ...(env['KAFKA_BROKERS'] ?? '').split(',').filter((b) => b !== ''),
      ...['DATABASE_URL', 'REDIS_URL'].flatMap((key) => (env[key] ? hostsOf(env[key]) : [])),
    ].map((address) => address.split(':')[0]!);
    for (const host of hosts)
      assert.ok(compose.services[host], `${name} connects to ${host}, which is not a service here`);
  }
});

test('Kafka is three KRaft nodes of one quorum, every topic on all three with min.insync.replicas=2, and memstream knows them all', () => {
  const kafka = services.filter(([, s]) => (s.image ?? '').startsWith('apache/kafka:'));
  assert.equal(kafka.length, 3, 'three brokers');
  const envs = kafka.map(([, s]) => environmentOf(s));
  const voters = (envs[0]!['KAFKA_CONTROLLER_QUORUM_VOTERS'] ?? '').split(',');
  assert.deepEqual(
    voters.sort(),
    kafka.map(([name], i) => `${envs[i]!['KAFKA_NODE_ID']}@${name}:9093`).sort(),
    'each node a voter, by its own id and address',
  );
  for (const [i, env] of envs.entries()) {
    const name = kafka[i]![0];
    assert.equal(env['KAFKA_CONTROLLER_QUORUM_VOTERS'], envs[0]!['KAFKA_CONTROLLER_QUORUM_VOTERS'], name);
    assert.equal(env['CLUSTER_ID'], envs[0]!['CLUSTER_ID'], `${name} formats as the same cluster`);
    assert.equal(env['KAFKA_ADVERTISED_LISTENERS'], `PLAINTEXT://${name}:9092`, name);
    for (const key of [
      'KAFKA_DEFAULT_REPLICATION_FACTOR',
      'KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR',
      'KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR',
    ])
      assert.equal(env[key], '3', `${name} ${key}`);
    for (const key of ['KAFKA_MIN_INSYNC_REPLICAS', 'KAFKA_TRANSACTION_STATE_LOG_MIN_ISR'])
      assert.equal(env[key], '2', `${name} ${key}`);
    assert.equal(new Set(kafka.map(([, s]) => String(s.volumes?.[0]))).size, 3, 'a volume each');
  }
  for (const [name, service] of memstreamContainers) {
    const config = effectiveConfig(memstreamServiceOf(service), environmentOf(service));
    assert.deepEqual(
      [...(config['KAFKA_BROKERS'] as string[])].sort(),
      kafka.map(([broker]) => `${broker}:9092`).sort(),
      `${name} bootstraps from every broker`,
    );
    assert.equal(config['KAFKA_REPLICATION_FACTOR'] ?? 3, 3, `${name} creates topics on all three`);
  }
});

test('Redis is a master, a replica and three sentinels of a majority quorum, and every process finds the master through all three', () => {
  const config = compose.configs?.['redis-sentinel']?.content ?? '';
  const monitor = /^sentinel monitor (\S+) (\S+) (\d+) (\d+)$/m.exec(config);
  assert.ok(monitor, 'configs.redis-sentinel monitors no master');
  const [, name, masterHost, masterPort, quorum] = monitor as unknown as [string, string, string, string, string];
  const sentinels = services.filter(([, s]) =>
    (s.configs ?? []).some((c) => (typeof c === 'string' ? c : c.source) === 'redis-sentinel'),
  );
  assert.equal(sentinels.length, 3, 'three sentinels');
  assert.ok(
    Number(quorum) > sentinels.length / 2 && Number(quorum) <= sentinels.length,
    `quorum ${quorum} of ${sentinels.length}: a majority must agree the master is gone`,
  );
  // the master is named by its service name, which changes address when its container is recreated
  assert.match(config, /^sentinel resolve-hostnames yes$/m);
  assert.match(config, /^sentinel announce-hostnames yes$/m);
  const port = Number(/^port (\d+)$/m.exec(config)?.[1] ?? 26379);

  const master = compose.services[masterHost];
  assert.ok(master?.image?.startsWith('redis:'), `the sentinels monitor ${masterHost}, which is no Redis of this file`);
  const replicas = services.filter(([, s]) => {
    const args = argsOf(s);
    const at = args.indexOf('--replicaof');
    return at >= 0 && args[at + 1] === masterHost && args[at + 2] === masterPort;
  });
  assert.ok(replicas.length >= 1, `no replica of ${masterHost} to promote`);
  // what the sentinels hand out after a failover is a name the containers resolve
  const servers: [string, ComposeService][] = [[masterHost, master!], ...replicas];
  for (const [server, service] of servers) {
    const args = argsOf(service);
    assert.equal(args[args.indexOf('--replica-announce-ip') + 1], server, `${server} announces another address`);
  }
  for (const [sentinel, service] of sentinels) {
    assert.ok(argsOf(service).join(' ').includes('--sentinel'), `${sentinel} does not run as a sentinel`);
    assert.match(JSON.stringify(service.healthcheck?.test), new RegExp(`ckquorum ${name}\\b`), sentinel);
  }

  const users = memstreamContainers.filter(([, s]) => environmentOf(s)['REDIS_URL'] !== undefined);
  assert.ok(users.length >= 4);
  for (const [container, service] of users) {
    const options = sentinelOptionsOf(environmentOf(service)['REDIS_URL']!);
    assert.ok(options, `${container} connects to one Redis server, not through the sentinels`);
    assert.equal(options.name, name, `${container} asks for another master name`);
    assert.deepEqual(
      (options.sentinels ?? []).map((s) => `${String(s.host)}:${String(s.port)}`).sort(),
      sentinels.map(([sentinel]) => `${sentinel}:${port}`).sort(),
      `${container} asks every sentinel`,
    );
  }
});

test('memstream containers get longer than SHUTDOWN_TIMEOUT_MS to stop', () => {
  for (const [name, service] of memstreamContainers) {
    const deadlineMs = Number(
      effectiveConfig(memstreamServiceOf(service), environmentOf(service))['SHUTDOWN_TIMEOUT_MS'],
    );
    // compose kills after 10 s unless told otherwise
    const graceMs = seconds(service.stop_grace_period ?? '10s') * 1000;
    assert.ok(
      graceMs > deadlineMs,
      `${name}: stop_grace_period ${graceMs} ms is not above the shutdown deadline ${deadlineMs} ms`,
    );
  }
});

test('the edge publishes the embedded mode port and proxies to services of this file on their ports', () => {
  const embeddedPort = Number(effectiveConfig('all-in-one', {})['PORT']);
  const published = services.flatMap(([name, s]) =>
    (s.ports ?? []).map((p) => ({ name, host: typeof p === 'string' ? p.split(':').at(-2) : String(p.published) })),
  );
  const edge = services.find(([, s]) =>
    (s.volumes ?? []).some((v) => (typeof v === 'string' ? v : (v.source ?? '')).includes('edge/memstream.conf')),
  );
  assert.ok(edge, 'no container mounts the edge configuration');
  assert.deepEqual(
    published,
    [{ name: edge[0], host: String(embeddedPort) }],
    'only the edge publishes a port, the embedded mode one',
  );

  const mount = (edge[1].volumes ?? [])
    .map((v) => (typeof v === 'string' ? v : `${v.source}:${v.target}`))
    .find((v) => v.includes('memstream.conf'))!;
  const source = join(ROOT, mount.split(':')[0]!);
  assert.ok(existsSync(source), `${source} is missing`);
  const config = parseEdgeConfig(readFileSync(source, 'utf8'));
  for (const [upstream, servers] of config.upstreams) {
    for (const server of servers) {
      const [host, port] = server.split(':');
      const target = compose.services[host!];
      assert.ok(target && isMemstream(target), `upstream ${upstream}: ${host} is not a memstream service of this file`);
      const listens = effectiveConfig(memstreamServiceOf(target), environmentOf(target))['PORT'];
      assert.equal(Number(port), listens, `upstream ${upstream}: ${host} listens on ${String(listens)}`);
    }
  }
});

test('the API containers take their credentials from the shell running compose, and compose refuses to start without them', () => {
  const apis = memstreamContainers.filter(([, s]) => isApiProcess(memstreamServiceOf(s)));
  assert.deepEqual(apis.map(([, s]) => memstreamServiceOf(s)).sort(), ['ingest-gateway', 'read-api']);
  for (const [name, service] of apis) {
    const raw = rawEnvironmentOf(service);
    for (const key of API_CREDENTIALS) {
      // a required reference to the variable of the same name: no value, and no default, in the file
      assert.match(
        raw[key] ?? '(unset)',
        new RegExp(`^\\$\\{${key}:\\?[^}]*\\}$`),
        `${name}: ${key} is not \${${key}:?...}`,
      );
    }
    assert.throws(() => environmentOf(service, {}), /compose refuses to start/, `${name} starts from a bare shell`);
  }
});

test('the API containers listen beyond loopback, where the edge reaches them, with authentication on', () => {
  const apis = memstreamContainers.filter(([, s]) => isApiProcess(memstreamServiceOf(s)));
  assert.ok(apis.length >= 2);
  for (const [name, service] of apis) {
    const { host, authenticated } = exposureOf(memstreamServiceOf(service), environmentOf(service));
    assert.ok(authenticated, `${name}: callers need no credentials`);
    assert.ok(!LOOPBACK_HOSTS.has(host), `${name} listens on ${host}, which the edge cannot reach`);
  }
});

test('consumer containers are given no API credentials: they serve only probes and metrics', () => {
  const consumers = memstreamContainers.filter(([, s]) => !isApiProcess(memstreamServiceOf(s)));
  assert.ok(consumers.length >= 4);
  for (const [name, service] of consumers) {
    const given = Object.keys(environmentOf(service)).filter((key) => AUTH_SETTINGS.includes(key));
    assert.deepEqual(given, [], `${name} is given ${given.join(', ')}`);
  }
});

test('every healthcheck of a memstream container asks a path that needs no credentials', () => {
  for (const [name, service] of memstreamContainers.filter(([, s]) => !isOneShot(s))) {
    const urls = JSON.stringify(service.healthcheck?.test ?? []).match(/https?:\/\/[^'"\s)]+/g) ?? [];
    assert.ok(urls.length > 0, `${name}: the healthcheck asks no URL`);
    for (const url of urls) assert.match(new URL(url).pathname, OPEN_PATH, `${name}: ${url} needs credentials`);
  }
});
