import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseEdgeConfig } from './nginx-conf.js';
import { REPO_ROOT } from './processes.js';

/** The edge's configuration, the one file docker-compose mounts and Kubernetes makes a ConfigMap of. */
export const EDGE_CONF = resolve(REPO_ROOT, 'k8s', 'base', 'edge', 'memstream.conf');

export interface RunningEdge {
  /** The one address of every API family, as the edge gives it in compose and Kubernetes. */
  readonly base: string;
  close(): Promise<void>;
}

/**
 * The edge for tests and benchmarks of the distributed mode, in this process: each request goes
 * where the edge's own rules (EDGE_CONF, read as nginx reads them) send it, to the local address
 * given for that upstream's service (`ingest-gateway`, `read-api`). Clients then talk to one
 * address whatever process serves a route, as they do in compose and Kubernetes. Bodies stream
 * both ways unbuffered (held writes, Server-Sent Events), and a client that leaves closes its
 * upstream request, so the service sees it leave.
 */
export async function startEdge(services: Readonly<Record<string, string>>): Promise<RunningEdge> {
  const config = parseEdgeConfig(readFileSync(EDGE_CONF, 'utf8'));
  const server = createServer((req, res) => {
    const target = config.route(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!);
    if ('status' in target) return void res.writeHead(target.status).end();
    const host = config.upstreams.get(target.upstream)?.[0]?.split(':')[0] ?? '';
    const address = services[host];
    if (address === undefined) return void res.writeHead(502).end(`no address given for ${host}`);
    const to = new URL(address);
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
