import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { JWK } from 'jose';

export interface KeySetServer {
  readonly url: string;
  /** Replaces the published key set (a rotation, as an identity provider does it). */
  publish(keys: readonly JWK[]): void;
  /** Answers every later fetch with this status and body instead of the key set. */
  fail(status: number, body: string): void;
  /** How many times the key set was fetched. */
  fetches(): number;
}

/** A real identity provider's JWKS endpoint on a free loopback port, closed when the test ends. */
export async function keySetServer(t: TestContext, keys: readonly JWK[] = []): Promise<KeySetServer> {
  let published = keys;
  let failure: { status: number; body: string } | undefined;
  let fetches = 0;
  const server = createServer((_req, res) => {
    fetches += 1;
    if (failure) return void res.writeHead(failure.status, { 'content-type': 'text/plain' }).end(failure.body);
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: published }));
  });
  await listen(server);
  t.after(() => close(server));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    publish: (next) => void (published = next),
    fail: (status, body) => void (failure = { status, body }),
    fetches: () => fetches,
  };
}

/** A JWKS URL nothing listens on: a port that was free a moment ago. */
export async function closedKeySetUrl(): Promise<string> {
  const server = createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return `http://127.0.0.1:${port}/.well-known/jwks.json`;
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

/** fetch keeps its connection alive; without dropping it, close would wait for the client. */
function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}
