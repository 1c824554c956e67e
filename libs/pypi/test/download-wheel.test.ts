import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { downloadWheel, PinnedWheelError, type WheelPin } from '../src/download-wheel.js';

const WHEEL = Buffer.from('not really a wheel, but bytes with a known hash');
const PIN: WheelPin = { project: 'tiny-model', filename: 'tiny_model-1.0-py3-none-any.whl', sha256: createHash('sha256').update(WHEEL).digest('hex') };

/**
 * A package index on loopback that serves the simple API as JSON (PEP 691) or HTML (PEP 503), and
 * one file, which it can fail with 503 a few times or replace with other bytes.
 */
async function startIndex(t: { after: (fn: () => Promise<void>) => void }, options: { html?: boolean; failFile?: number; serve?: Buffer } = {}) {
  const seen = { pages: 0, files: 0 };
  let failures = options.failFile ?? 0;
  const server = createServer((req, res) => {
    if (req.url === '/simple/tiny-model/') {
      seen.pages++;
      const href = `../../files/${PIN.filename}`;
      if (options.html) {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="${href}#sha256=${PIN.sha256}">${PIN.filename}</a>`);
      } else {
        const body = { files: [{ filename: 'tiny_model-0.9.tar.gz', url: 'x' }, { filename: PIN.filename, url: href, hashes: { sha256: PIN.sha256 } }] };
        res.writeHead(200, { 'content-type': 'application/vnd.pypi.simple.v1+json' }).end(JSON.stringify(body));
      }
    } else if (req.url === `/files/${PIN.filename}`) {
      seen.files++;
      if (failures-- > 0) res.writeHead(503).end();
      else res.writeHead(200).end(options.serve ?? WHEEL);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { indexUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple`, seen };
}

const quiet = () => {};

test('the pinned file is found through the JSON simple API and downloaded', async (t) => {
  const { indexUrl } = await startIndex(t);
  assert.deepEqual(await downloadWheel(PIN, { indexUrl, log: quiet }), WHEEL);
});

test('an index that only speaks HTML works too', async (t) => {
  const { indexUrl } = await startIndex(t, { html: true });
  assert.deepEqual(await downloadWheel(PIN, { indexUrl: `${indexUrl}/`, log: quiet }), WHEEL);
});

test('a failing download is tried again', async (t) => {
  const { indexUrl, seen } = await startIndex(t, { failFile: 1 });
  const lines: string[] = [];
  assert.deepEqual(await downloadWheel(PIN, { indexUrl, log: (line) => lines.push(line) }), WHEEL);
  assert.equal(seen.files, 2);
  assert.ok(lines.some((line) => line.includes('retrying')));
});

test('bytes that do not match the pinned sha256 are refused at once, without retrying', async (t) => {
  const { indexUrl, seen } = await startIndex(t, { serve: Buffer.from('tampered') });
  await assert.rejects(downloadWheel(PIN, { indexUrl, log: quiet }), (err) => err instanceof PinnedWheelError && /expected/.test(err.message));
  assert.equal(seen.files, 1);
});

test('an index that does not list the file says so', async (t) => {
  const { indexUrl } = await startIndex(t);
  await assert.rejects(downloadWheel({ ...PIN, filename: 'other-2.0-py3-none-any.whl' }, { indexUrl, log: quiet }), /does not list/);
});
