/**
 * `npm run bench:mcp`: the MCP server as an agent's host runs it (a child process on stdio, the
 * official SDK's client), against the embedded memstream in this process. It measures start-up
 * (spawn to a listed tool set), resident memory of the MCP process idle and after the load, and
 * the latency of `add_memory` and `search_memory` beside the same calls made straight through
 * @memstream/client in the same run (the raw baseline: what the MCP layer adds is the difference).
 * Both ways of starting the server are measured: the published bin (sources through tsx) and the
 * compiled build (`--conditions=memstream-dist`, as `npm start` runs the platform).
 *
 *   npm run bench:mcp -- [--calls 200]
 */
import { mkdtemp } from 'node:fs/promises';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { allInOneEnv, startEmbedded } from '@memstream/all-in-one';
import { MemstreamClient } from '@memstream/client';
import { loadConfig } from '@memstream/config';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { REPO_ROOT } from '../harness/processes.js';
import { positiveInt } from './lib/flags.js';
import { summarizeLatencies } from './lib/stats.js';
import { section, table } from './lib/table.js';

const args = process.argv.slice(2);
const at = args.indexOf('--calls');
const CALLS = at >= 0 ? positiveInt('calls', args[at + 1] ?? '') : 200;
const LINES = [
  'The greyhound adoption papers arrive on Friday.',
  'Marathon training starts in March.',
  'We booked the lake cabin for May.',
  'Tomatoes from the garden for Sunday.',
];

const dataDir = await mkdtemp(join(tmpdir(), 'memstream-bench-mcp-'));
const log = createLogger({ service: 'bench-mcp', level: 'warn' });
const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000, exit: () => undefined });
try {
  const config = loadConfig(allInOneEnv, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'hash',
    EPISODE_IDLE_CLOSE_MS: '0',
  });
  const port = await startEmbedded({ config, log, lifecycle, metrics: new Metrics({ processMetrics: false }) });
  lifecycle.markReady();
  const base = `http://127.0.0.1:${port}`;
  const raw = new MemstreamClient({ baseUrl: base });

  const rows: Array<Array<string | number>> = [];
  const memory: Array<Array<string | number>> = [];
  for (const [label, args] of [
    ['bin (tsx)', ['services/mcp/bin/memstream-mcp.js']],
    ['compiled', ['--conditions=memstream-dist', 'services/mcp/dist/main.js']],
  ] as const) {
    const started = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...args],
      cwd: REPO_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '/tmp',
        MEMSTREAM_URL: base,
        LOG_LEVEL: 'warn',
      },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'bench-mcp', version: '0.0.0' });
    await client.connect(transport);
    const tools = await client.listTools();
    const startupMs = performance.now() - started;
    if (tools.tools.length < 6) throw new Error(`${label}: ${tools.tools.length} tools listed`);
    const idle = rssMiB(transport.pid!);

    const group = `bench_mcp_${label.replace(/\W/g, '')}`;
    const viaMcp = async (i: number) => {
      const result = await client.callTool({
        name: 'add_memory',
        arguments: {
          conversation_id: group,
          content: LINES[i % LINES.length]!,
          sender: `u${i % 3}`,
          message_id: `mcp-${i}`,
        },
      });
      if (result.isError) throw new Error(JSON.stringify(result.content));
    };
    const viaClient = async (i: number) => {
      await raw.evermemos.write({
        group_id: `${group}_raw`,
        message_id: `raw-${i}`,
        sender: `u${i % 3}`,
        content: LINES[i % LINES.length]!,
        create_time: new Date().toISOString(),
      });
    };
    const searchMcp = async (i: number) => {
      const result = await client.callTool({
        name: 'search_memory',
        arguments: { query: LINES[i % LINES.length]!, conversation_id: group, top_k: 5 },
      });
      if (result.isError) throw new Error(JSON.stringify(result.content));
    };
    const searchClient = async (i: number) => {
      await raw.evermemos.search({ query: LINES[i % LINES.length]!, group_id: `${group}_raw`, top_k: 5 });
    };
    for (const [what, run] of [
      ['add_memory via MCP', viaMcp],
      ['the same write via @memstream/client', viaClient],
      ['search_memory via MCP', searchMcp],
      ['the same search via @memstream/client', searchClient],
    ] as const) {
      const summary = await measure(run);
      rows.push([label, what, summary.count, summary.p50, summary.p95, summary.p99]);
    }
    memory.push([label, Math.round(startupMs), idle, rssMiB(transport.pid!)]);
    await client.close();
  }

  console.log(
    section(`MCP server over stdio against the embedded memstream (hash embedder), ${CALLS} calls each, one at a time`),
  );
  console.log(table(['server', 'call', 'calls', 'p50 ms', 'p95 ms', 'p99 ms'], rows));
  console.log(
    table(
      ['server', 'start-up to tools listed (ms)', 'MCP process RSS idle (MiB)', 'RSS after the calls (MiB)'],
      memory,
    ),
  );
} finally {
  await lifecycle.shutdown();
  rmSync(dataDir, { recursive: true, force: true });
}

async function measure(run: (i: number) => Promise<void>) {
  for (let i = 0; i < 10; i++) await run(CALLS + i); // warm up
  const samples = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await run(i);
    samples[i] = performance.now() - t0;
  }
  return summarizeLatencies(samples);
}

/** Resident memory of a process of this machine, from /proc (Linux). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb === undefined ? -1 : Math.round(Number(kb) / 1024);
}
