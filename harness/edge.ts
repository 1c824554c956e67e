import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { freePort, launch, listensOn, REPO_ROOT, type LaunchedProcess } from './processes.js';

/** The edge's configuration, the one file docker-compose mounts and Kubernetes makes a ConfigMap of. */
export const EDGE_CONF = resolve(REPO_ROOT, 'k8s', 'base', 'edge', 'memstream.conf');

export interface RunningEdge {
  /** The one address of every API family, as the edge gives it in compose and Kubernetes. */
  readonly base: string;
  /** Where this edge writes the log files the shipped configuration names (gone after close). */
  readonly logDir: string;
  close(): Promise<void>;
}

/** How many free ports to try when another test's server binds the one handed out first. */
const PORT_ATTEMPTS = 5;
const START_TIMEOUT_MS = 20_000;

/**
 * EDGE_CONF with its deployment addresses swapped for this test's: every upstream `server host:port`
 * by the local address given for that host, the one `listen` by a loopback port, and the log files
 * under /var/log/nginx by files of `logDir`. Everything else
 * (the map, the locations, buffering, timeouts, body limit) is the file as it ships. A host the file
 * names that `services` lacks, or a `services` entry the file never names, is an error rather than
 * an edge quietly routing elsewhere.
 */
export function localEdgeConf(
  text: string,
  services: Readonly<Record<string, string>>,
  port: number,
  logDir: string,
): string {
  const used = new Set<string>();
  const upstreamsReplaced = text.replace(
    /^(\s*server\s+)([A-Za-z0-9.-]+):(\d+)(\s*;)/gm,
    (_all, lead: string, host: string, _port: string, tail: string) => {
      const address = services[host];
      if (address === undefined)
        throw new Error(`the edge names upstream host ${host}, and no address was given for it`);
      used.add(host);
      return `${lead}${new URL(address).host}${tail}`;
    },
  );
  const unused = Object.keys(services).filter((host) => !used.has(host));
  if (unused.length > 0) throw new Error(`no upstream of the edge names ${unused.join(', ')}`);
  let listens = 0;
  const local = upstreamsReplaced.replace(/^(\s*listen\s+)[^;]+;/gm, (_all, lead: string) => {
    listens += 1;
    return `${lead}127.0.0.1:${port};`;
  });
  if (listens !== 1) throw new Error(`expected one listen directive in the edge, found ${listens}`);
  // The image's log files (linked to its standard output and error) become files of this edge's own.
  return local.replace(
    /^(\s*(?:access|error)_log\s+)\/var\/log\/nginx\/([\w.-]+)/gm,
    (_all, lead: string, file: string) => `${lead}${join(logDir, file)}`,
  );
}

/**
 * The top of the configuration nginx reads: what a packaged nginx.conf would give the edge's
 * blocks (an `http` context), with every path nginx writes under `prefix`, so that tests running
 * side by side never share a file, and nothing under /var.
 */
function mainConf(prefix: string): string {
  return [
    // As root the master hands requests to workers running as `user`; the default (nobody) could
    // not enter the 0700 temporary prefix. Root workers are harmless here: loopback only, one test's
    // lifetime. As any other user nginx ignores `user` (with a warning), so it is left out.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    // One worker: the machine is shared, and a test's edge carries little.
    'worker_processes 1;',
    'events {}',
    'http {',
    // The access log would hold every path and query (user ids, search terms): not worth keeping.
    '  access_log off;',
    `  client_body_temp_path ${join(prefix, 'client_body')};`,
    `  proxy_temp_path ${join(prefix, 'proxy')};`,
    `  fastcgi_temp_path ${join(prefix, 'fastcgi')};`,
    `  uwsgi_temp_path ${join(prefix, 'uwsgi')};`,
    `  scgi_temp_path ${join(prefix, 'scgi')};`,
    `  include ${join(prefix, 'edge.conf')};`,
    '}',
    '',
  ].join('\n');
}

/**
 * Debian installs nginx in /usr/sbin, which an unprivileged user's PATH often lacks: PATH first, then
 * there.
 */
function nginxBinary(): string {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean), '/usr/sbin'];
  for (const dir of dirs) {
    try {
      accessSync(join(dir, 'nginx'), constants.X_OK);
      return join(dir, 'nginx');
    } catch {
      // not in this directory
    }
  }
  throw new Error(
    "nginx is not installed: run 'bash scripts/infra/nginx.sh install' (as root, or apt-get install nginx)",
  );
}

/** Polls the edge's own liveness (no service asked) until this nginx, not another server on the port, answers. */
async function untilServing(proc: LaunchedProcess, base: string, port: number): Promise<'serving' | 'port taken'> {
  let exit: string | undefined;
  void proc.exited.then((code) => (exit = String(code)));
  const since = performance.now();
  while (performance.now() - since < START_TIMEOUT_MS) {
    if (exit !== undefined) {
      if (proc.tail().includes('Address already in use')) return 'port taken';
      throw new Error(`nginx exited (${exit}) before it served:\n${proc.tail()}`);
    }
    const ok = await fetch(`${base}/health/edge`, { signal: AbortSignal.timeout(2_000) }).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false, // not listening yet
    );
    if (ok && listensOn(proc.pid, port)) return 'serving';
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`nginx did not serve within ${START_TIMEOUT_MS} ms:\n${proc.tail()}`);
}

/**
 * The edge for tests and benchmarks of the distributed mode: Debian's nginx (scripts/infra/nginx.sh
 * installs it) with EDGE_CONF as compose and Kubernetes use it, its upstreams pointed at the local
 * addresses given for each service (`ingest-gateway`, `read-api`). Clients then talk to one address
 * whatever process serves a route, through the same proxy that splits them in production.
 * `close()` stops nginx's whole process group and removes its prefix directory.
 */
export async function startEdge(services: Readonly<Record<string, string>>): Promise<RunningEdge> {
  const nginx = nginxBinary();
  const text = await readFile(EDGE_CONF, 'utf8');
  const prefix = await mkdtemp(join(tmpdir(), 'memstream-edge-'));
  const confPath = join(prefix, 'nginx.conf');
  await writeFile(confPath, mainConf(prefix));
  try {
    for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      const port = await freePort();
      await writeFile(join(prefix, 'edge.conf'), localEdgeConf(text, services, port, prefix));
      // -e: errors to stderr from the first line on, before the configuration names a log (the
      // compiled-in /var/log/nginx/error.log may not be writable); the launcher keeps the tail.
      const proc = launch(
        nginx,
        ['-p', prefix, '-c', confPath, '-e', 'stderr', '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`],
        {},
      );
      const base = `http://127.0.0.1:${port}`;
      let state: 'serving' | 'port taken';
      try {
        state = await untilServing(proc, base, port);
      } catch (err) {
        await proc.crash();
        throw err;
      }
      if (state === 'port taken') {
        await proc.stop();
        continue;
      }
      return {
        base,
        logDir: prefix,
        close: async () => {
          await proc.stop(10_000);
          await rm(prefix, { recursive: true, force: true });
        },
      };
    }
    throw new Error(`nginx found no free port in ${PORT_ATTEMPTS} attempts`);
  } catch (err) {
    await rm(prefix, { recursive: true, force: true });
    throw err;
  }
}
