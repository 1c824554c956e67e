import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthenticator } from '@memstream/auth';
import { createHttpServer, serveStatic } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';

const SECRET = 'test-secret-0123456789abcdefghijklmnop';

/**
 * A built site beside a secret it must never serve: `site/` is the root, `secret.txt` sits next
 * to it, and `site/out` links back out to the parent folder.
 */
async function site(t: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), 'serve-static-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const root = join(dir, 'site');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(root, 'assets', 'index-B3x9_kQa.js'), 'console.log(1)');
  await writeFile(join(root, 'assets', 'app.css'), 'body{}');
  await writeFile(join(root, '.env'), 'TOKEN=dotfile');
  await writeFile(join(dir, 'secret.txt'), 'do not serve');
  await symlink(dir, join(root, 'out'));
  // Authentication on, so the test also shows the site needs no credentials.
  const log = createLogger({ service: 'test', level: 'silent' });
  const app = createHttpServer({
    log,
    lifecycle: new Lifecycle({ log, shutdownTimeoutMs: 1000 }),
    bodyLimitBytes: 1024,
    metrics: new Metrics(),
    authenticator: createAuthenticator({ secret: SECRET, apiKeys: [] }),
  });
  await serveStatic(app, { prefix: '/console', root, headers: { 'content-security-policy': "default-src 'self'" } });
  app.get('/private', async () => ({ data: 'needs credentials' }));
  t.after(() => app.close());
  return app;
}

test('files are served with their content type, to callers without credentials', async (t) => {
  const app = await site(t);
  const page = await app.inject({ url: '/console/' });
  assert.equal(page.statusCode, 200);
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(page.headers['content-security-policy'], "default-src 'self'");
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  assert.match(page.body, /<title>console/);
  const script = await app.inject({ url: '/console/assets/index-B3x9_kQa.js' });
  assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(script.body, 'console.log(1)');
  assert.equal(
    (await app.inject({ url: '/console/assets/app.css' })).headers['content-type'],
    'text/css; charset=utf-8',
  );
  // The site being open leaves every other route closed.
  assert.equal((await app.inject({ url: '/private' })).statusCode, 401);
});

test('hashed files are cached for a year, the page and unhashed files are revalidated', async (t) => {
  const app = await site(t);
  const hashed = await app.inject({ url: '/console/assets/index-B3x9_kQa.js' });
  assert.equal(hashed.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal((await app.inject({ url: '/console/' })).headers['cache-control'], 'no-cache');
  assert.equal((await app.inject({ url: '/console/assets/app.css' })).headers['cache-control'], 'no-cache');
  const again = await app.inject({ url: '/console/', headers: { 'if-none-match': String(hashed.headers.etag) } });
  assert.equal(again.statusCode, 200, 'another file’s tag does not match');
  const page = await app.inject({ url: '/console/' });
  const revalidated = await app.inject({ url: '/console/', headers: { 'if-none-match': String(page.headers.etag) } });
  assert.equal(revalidated.statusCode, 304);
  assert.equal(revalidated.body, '');
});

test("the page's own routes get index.html; a missing file with an extension is 404", async (t) => {
  const app = await site(t);
  for (const url of [
    '/console/conversations',
    '/console/conversations/team%2Falpha',
    '/console/search?q=x',
    // an id with dots, as the docs' own example, loaded directly
    '/console/conversations/my-app.default.svc',
    '/console/conversations/my-app.default.svc/memories',
  ]) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.match(res.body, /<title>console/, url);
    assert.equal(res.headers['cache-control'], 'no-cache', url);
  }
  assert.equal((await app.inject({ url: '/console/assets/missing.js' })).statusCode, 404);
  assert.equal((await app.inject({ url: '/console/favicon.ico' })).statusCode, 404);
  const bare = await app.inject({ url: '/console?x=1' });
  assert.equal(bare.statusCode, 308);
  assert.equal(bare.headers.location, '/console/?x=1');
});

test('nothing outside the folder is served: parent paths, encoded separators, links out, dotfiles', async (t) => {
  const app = await site(t);
  for (const url of [
    '/console/../secret.txt',
    '/console/%2e%2e/secret.txt',
    '/console/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/console/..%2fsecret.txt',
    '/console/..%5csecret.txt',
    '/console/out/secret.txt',
    '/console/.env',
    '/console/assets/%00.js',
  ]) {
    const res = await app.inject({ url });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${url}: ${res.statusCode}`);
    assert.doesNotMatch(res.body, /do not serve|TOKEN=/, url);
  }
});
