import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { ROOT, longRunningServices } from './catalogue.js';
import { parseEdgeConfig, type EdgeConfig } from '../../harness/nginx-conf.js';
import { Rendered } from './rendered.js';
import { routesOf, type ServiceRoute } from './service-routes.js';
import { renderKustomization } from './tools.js';

// One file serves the edge in compose and in Kubernetes (mounted, and a generated ConfigMap).
const EDGE_CONF = join(ROOT, 'k8s', 'base', 'edge', 'memstream.conf');
const edge = parseEdgeConfig(readFileSync(EDGE_CONF, 'utf8'));

const routes: ServiceRoute[] = (await Promise.all(longRunningServices().map(routesOf))).flat();

/** The service the edge hands a request to: the host of the upstream it picks (the Service and the compose service share the name). */
function edgeDestination(config: EdgeConfig, method: string, path: string): string {
  const target = config.route(method, path);
  assert.ok('upstream' in target, `the edge answers ${method} ${path} itself with ${JSON.stringify(target)}`);
  const servers = config.upstreams.get(target.upstream);
  assert.ok(
    servers && servers.length === 1,
    `upstream ${target.upstream} should name one server (a Service or compose service)`,
  );
  return servers[0]!.split(':')[0]!;
}

/** The backend Service an Ingress picks for a path: the longest matching path, Exact before Prefix. */
function ingressBackend(ingress: IIngress, path: string): string | undefined {
  const matches = (ingress.spec?.rules ?? []).flatMap((rule) =>
    (rule.http?.paths ?? [])
      .map((p) => ({ p, at: (p.path ?? '/').replace(/(.)\/$/, '$1') }))
      .filter(({ p, at }) =>
        p.pathType === 'Exact' ? path === at : at === '/' || path === at || path.startsWith(`${at}/`),
      ),
  );
  matches.sort(
    (a, b) => b.at.length - a.at.length || Number(b.p.pathType === 'Exact') - Number(a.p.pathType === 'Exact'),
  );
  return matches[0]?.p.backend.service?.name;
}

test('the route scan finds the public routes of both HTTP services: the writes on the gateway, the reads on the read API', () => {
  const count = (service: string) => routes.filter((r) => r.service === service).length;
  assert.ok(count('ingest-gateway') >= 10, 'ingest-gateway routes');
  assert.ok(count('read-api') >= 10, 'read-api routes');
  const has = (service: string, method: string, declared: string) =>
    assert.ok(
      routes.some((r) => r.service === service && r.method === method && r.declared === declared),
      `${method} ${declared} on ${service}`,
    );
  has('read-api', 'GET', '/api/v1/memories');
  has('ingest-gateway', 'POST', '/api/v1/memories');
  has('ingest-gateway', 'DELETE', '/api/v1/memories');
  has('ingest-gateway', 'POST', '/api/v1/memories/flush');
  has('read-api', 'POST', '/api/v1/memories/search');
  has('ingest-gateway', 'POST', '/messages');
  has('read-api', 'GET', '/messages');
  has('read-api', 'GET', '/stream/:session_id');
  has('ingest-gateway', 'POST', '/stream/:session_id');
  // memory-service, both layouts: its paths are built from variables and loops, which a scan of the source would miss
  has('read-api', 'GET', '/v1/health');
  has('ingest-gateway', 'POST', '/v1/conversations');
  has('read-api', 'GET', '/v1/conversations');
  has('ingest-gateway', 'POST', '/v1/conversations/:conversationId/transfer-ownership/accept');
  has('ingest-gateway', 'POST', '/v1/user/conversations/:conversationId/messages/:messageId/fork');
  has('ingest-gateway', 'DELETE', '/v1/user/conversations/:conversationId/memberships/:userId');
  has('ingest-gateway', 'POST', '/v1/agent/conversations/:conversationId/messages');
  has('read-api', 'POST', '/v1/user/search/messages');
  has('ingest-gateway', 'POST', '/memory/sessions');
  has('read-api', 'GET', '/memory/sessions');
});

test('no route is served by both processes', () => {
  const seen = new Map<string, string>();
  for (const r of routes) {
    const key = `${r.method} ${r.declared}`;
    assert.equal(seen.get(key) ?? r.service, r.service, `${key} on ${seen.get(key)} and ${r.service}`);
    seen.set(key, r.service);
  }
});

test('every operation of openapi.json is among the routes checked here', () => {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const checked = new Set(routes.map((r) => `${r.method} ${r.declared}`));
  const missing = Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    )
    .filter((op) => !checked.has(op));
  assert.deepEqual(missing, []);
});

test('the edge sends every route to the service that serves it', () => {
  for (const r of routes) {
    assert.equal(edgeDestination(edge, r.method, r.path), r.service, `${r.method} ${r.declared}`);
  }
});

test('the edge answers its own health check and nothing that a service serves', () => {
  assert.deepEqual(edge.route('GET', '/health/edge'), { status: 200 });
  for (const r of routes) assert.notEqual(r.path, '/health/edge');
});

test('the edge listens on 8080 and proxies to port 8080, where memstream services listen in compose and Kubernetes', () => {
  assert.deepEqual(edge.listen, ['8080']);
  for (const servers of edge.upstreams.values()) for (const server of servers) assert.match(server, /:8080$/);
});

for (const dir of ['k8s/base', ...readdirSync(join(ROOT, 'k8s', 'overlays')).map((o) => `k8s/overlays/${o}`)]) {
  describe(dir, () => {
    const k8s = new Rendered(renderKustomization(join(ROOT, dir)));
    const serviceRunBy = (serviceName: string): string | undefined => {
      const service = k8s.serviceNamed(serviceName);
      const deployment = service && k8s.deploymentBehind(service);
      return deployment?.spec?.template.spec?.containers[0]?.args?.[0] ?? deployment?.metadata?.name;
    };

    test('the Ingress sends every route to the service that serves it, through the edge where only the method tells', () => {
      assert.equal(k8s.ingresses.length, 1);
      const ingress = k8s.ingresses[0]!;
      for (const r of routes) {
        const backend = ingressBackend(ingress, r.path);
        assert.ok(backend, `${r.method} ${r.declared} matches no Ingress path`);
        const via = serviceRunBy(backend) === 'edge' ? edgeDestination(edge, r.method, r.path) : backend;
        assert.equal(serviceRunBy(via), r.service, `${r.method} ${r.declared} (Ingress -> ${backend} -> ${via})`);
      }
    });

    test("the edge's upstreams are Services on the ports it uses", () => {
      for (const servers of edge.upstreams.values()) {
        for (const server of servers) {
          const [host, port] = server.split(':');
          const service = k8s.serviceNamed(host!);
          assert.ok(service, `no Service ${host}`);
          assert.ok(
            (service.spec!.ports ?? []).some((p) => p.port === Number(port)),
            `Service ${host} has no port ${port}`,
          );
        }
      }
    });
  });
}
