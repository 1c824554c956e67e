/**
 * `npm run bench:console`: the console's bundle size (raw and gzip) and its first load in
 * Chromium, beside a raw baseline measured in the same run: an empty page served the same way
 * (libs/http's serveStatic on a server of the platform's own factory), loaded by the same browser.
 *
 * First load is navigation start to interactive: for the console, until its first view (the
 * conversation list, after its API calls answered) is on screen; for the empty page, its load
 * event. Cold loads run with the browser's cache off; warm loads with it on, after one load.
 * The embedded memstream runs in this process (authentication off, so the console signs in as
 * the local user), with 20 conversations of 10 messages.
 *
 *   npm run bench:console -- [--loads 20]
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { allInOneEnv, startEmbedded } from '@memstream/all-in-one';
import { MemstreamClient } from '@memstream/client';
import { loadConfig } from '@memstream/config';
import { createHttpServer, serveStatic } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { launchBrowser } from '../harness/browser.js';
import { REPO_ROOT } from '../harness/processes.js';
import { positiveInt } from './lib/flags.js';
import { summarizeLatencies } from './lib/stats.js';
import { section, table } from './lib/table.js';

const args = process.argv.slice(2);
const at = args.indexOf('--loads');
const LOADS = at >= 0 ? positiveInt('loads', args[at + 1] ?? '') : 20;
const DIST = join(REPO_ROOT, 'clients/console/dist');

async function bundleSizes(): Promise<Array<[string, number, number]>> {
  const files = [
    'index.html',
    ...(await readdir(join(DIST, 'assets'))).map((f) => `assets/${f}`).filter((f) => !f.endsWith('.map')),
  ];
  const rows: Array<[string, number, number]> = [];
  for (const file of files) {
    const bytes = await readFile(join(DIST, file));
    rows.push([file, bytes.length, gzipSync(bytes, { level: 6 }).length]);
  }
  return rows;
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

const dataDir = await mkdtemp(join(tmpdir(), 'memstream-bench-console-'));
const emptySite = await mkdtemp(join(tmpdir(), 'memstream-bench-empty-'));
const log = createLogger({ service: 'bench-console', level: 'warn' });
const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000, exit: () => undefined });
const browser = await launchBrowser();
try {
  const sizes = await bundleSizes();
  const total = sizes.reduce((s, [, raw, gz]) => [s[0]! + raw, s[1]! + gz], [0, 0]);
  console.log(section('Bundle (clients/console/dist)'));
  console.log(
    table(
      ['file', 'raw KiB', 'gzip KiB'],
      [...sizes.map(([f, raw, gz]) => [f, kib(raw), kib(gz)]), ['total', kib(total[0]!), kib(total[1]!)]],
    ),
  );

  const config = loadConfig(allInOneEnv, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'hash',
  });
  const port = await startEmbedded({ config, log, lifecycle, metrics: new Metrics({ processMetrics: false }) });
  lifecycle.markReady();
  const base = `http://127.0.0.1:${port}`;
  const client = new MemstreamClient({ baseUrl: base });
  for (let c = 0; c < 20; c++) {
    for (let m = 0; m < 10; m++) {
      await client.evermemos.write({
        group_id: `bench-${c}`,
        message_id: `m${m}`,
        create_time: new Date(Date.UTC(2025, 0, 1, 9, m)).toISOString(),
        sender: `person-${m % 3}`,
        content: `Message ${m} of conversation ${c}: plans for the week.`,
      });
    }
  }

  // The baseline: an empty page through the same plugin, on a server from the same factory.
  await writeFile(join(emptySite, 'index.html'), '<!doctype html><title>empty</title>');
  const baselineLifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000, exit: () => undefined });
  const baselineApp = createHttpServer({
    log,
    lifecycle: baselineLifecycle,
    bodyLimitBytes: 1024,
    metrics: new Metrics({ processMetrics: false }),
  });
  await serveStatic(baselineApp, { prefix: '/baseline', root: emptySite });
  await baselineApp.listen({ port: 0, host: '127.0.0.1' });
  lifecycle.defer('baseline server', () => baselineApp.close());
  const baselineUrl = `http://127.0.0.1:${(baselineApp.server.address() as { port: number }).port}/baseline/`;

  const page = await browser.page();
  const cdp = await browser.context.newCDPSession(page);
  const loadConsole = async () => {
    const t0 = performance.now();
    await page.goto(`${base}/console/`, { waitUntil: 'commit' });
    await page.getByTestId('conversations').waitFor({ timeout: 30_000 });
    return performance.now() - t0;
  };
  const loadBaseline = async () => {
    const t0 = performance.now();
    await page.goto(baselineUrl, { waitUntil: 'load' });
    return performance.now() - t0;
  };
  const rows: Array<Array<string | number>> = [];
  for (const cache of ['cold', 'warm'] as const) {
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: cache === 'cold' });
    // One load first: warms the cache for the warm pass, and the server and browser for both.
    await loadConsole();
    await loadBaseline();
    const samples = { console: new Float64Array(LOADS), baseline: new Float64Array(LOADS) };
    // Alternated, so both see the same machine.
    for (let i = 0; i < LOADS; i++) {
      samples.console[i] = await loadConsole();
      samples.baseline[i] = await loadBaseline();
    }
    for (const kind of ['console', 'baseline'] as const) {
      const s = summarizeLatencies(samples[kind]);
      rows.push([
        kind === 'console' ? 'console, to its first view' : 'empty page, to load',
        cache,
        s.count,
        s.p50,
        s.p95,
        s.max,
      ]);
    }
  }
  console.log(section('First load in Chromium (navigation to interactive), ms'));
  console.log(table(['page', 'cache', 'loads', 'p50', 'p95', 'max'], rows));
  console.log(
    JSON.stringify({
      bench: 'console',
      bundle: { rawBytes: total[0], gzipBytes: total[1] },
      loads: rows.map(([page, cache, , p50, p95]) => ({ page, cache, p50, p95 })),
    }),
  );
} finally {
  await browser.close();
  await lifecycle.shutdown();
  await rm(dataDir, { recursive: true, force: true });
  await rm(emptySite, { recursive: true, force: true });
}
