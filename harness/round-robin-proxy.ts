import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { freePort, launch, listensOn } from './processes.js';

/**
 * An HAProxy in TCP mode that hands each new connection to the next of `ports` in turn (the first
 * connection to the first port): one address over several PostgreSQL servers, as a Kubernetes
 * read-only Service or a load balancer is. HAProxy comes with scripts/infra/postgres-ha.sh install
 * (up.sh runs it).
 * Stopped, and its folder removed, when `t` ends. Resolves with the port it listens on.
 */
export async function startRoundRobinProxy(t: TestContext, ports: readonly number[]): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'memstream-haproxy-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  const config = [
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 1m',
    '  timeout server 1m',
    'listen servers',
    `  bind 127.0.0.1:${port}`,
    '  balance roundrobin',
    ...ports.map((p, i) => `  server s${i} 127.0.0.1:${p}`),
  ];
  await writeFile(join(dir, 'haproxy.cfg'), `${config.join('\n')}\n`);
  // -db: in the foreground, so stopping the launched process stops HAProxy.
  const proxy = launch('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], {});
  t.after(() => proxy.stop());
  // Watched through /proc, not probed: a probe's connection would take the first server's turn.
  const started = Date.now();
  while (!listensOn(proxy.pid, port)) {
    if (Date.now() - started > 10_000 || (await Promise.race([proxy.exited, sleep(20)])) !== undefined) {
      throw new Error(`haproxy did not listen on ${port}:\n${proxy.tail()}`);
    }
  }
  return port;
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(resolve, ms, undefined));
}
