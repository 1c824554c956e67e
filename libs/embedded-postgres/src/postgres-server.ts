import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chown, mkdir, open, readFile, rename, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs } from '@memstream/retry';
import pg from 'pg';
import type { Logger } from '@memstream/logging';
import type { Launcher } from './launcher.js';

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** The server's own folder (DATA_DIR/postgres): the cluster in `data`, its log, its socket. */
  readonly root: string;
  readonly binDir: string;
  readonly launcher: Launcher;
  readonly log: Logger;
  /** Crash recovery after a kill replays the WAL before the server answers: allow for it. */
  readonly startTimeoutMs?: number;
}

export interface EmbeddedPostgres {
  /** A Unix-socket connection string: the server listens on no TCP port at all. */
  readonly connectionString: string;
  stop(): Promise<void>;
}

const PORT = 5432; // only names the socket file (.s.PGSQL.5432); no TCP listener exists
const DATABASE = 'memstream';
const SUPERUSER = 'postgres';
/** Longer socket paths do not fit a sockaddr_un (108 bytes with the file name). */
const MAX_SOCKET_DIR = 90;
const LOG_KEEP_BYTES = 10 * 1024 * 1024;
/** How a server that died is started again: 0.5 s doubling to 30 s. */
const SERVER_RESTART = { initialDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Settings for one local process's database, chosen by measurement (bench:embedded): small shared
 * buffers keep the resident set low, no parallel workers on a 2-core laptop. Durability is
 * PostgreSQL's default and is not relaxed: fsync and synchronous_commit stay on, because a write
 * acknowledged to a client must survive a crash of the machine, not only of the process.
 */
const SERVER_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '',
  port: String(PORT),
  unix_socket_permissions: '0700',
  max_connections: '40',
  shared_buffers: '32MB',
  wal_buffers: '4MB',
  max_wal_size: '256MB',
  max_worker_processes: '2',
  max_parallel_workers: '0',
  max_parallel_workers_per_gather: '0',
  max_parallel_maintenance_workers: '0',
  jit: 'off',
  logging_collector: 'off',
  log_min_messages: 'warning',
};

/**
 * Starts (initialising on first use) a PostgreSQL server owned by this process, and resolves once
 * it accepts connections and the memstream database exists. A server left running by a previous
 * process on the same folder (one that died where the kernel could not tell the server) is waited
 * for and stopped first: two servers never share a cluster, PostgreSQL's own lock file sees to it.
 * If the server dies later (the OOM killer, a stray signal) it is started again, with backoff;
 * the pool's broken connections fail their queries meanwhile, and readiness reports it.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const root = resolve(options.root);
  const paths = { dataDir: join(root, 'data'), socketDir: socketFolder(root), logPath: join(root, 'postgres.log') };
  await ownedFolder(root, options.launcher);
  await ownedFolder(paths.socketDir, options.launcher);
  await stopLeftOver(paths.dataDir, options.log);
  if (!(await exists(join(paths.dataDir, 'PG_VERSION')))) await initCluster(paths.dataDir, root, options);
  await trimLog(paths.logPath);

  let server = await startServer(paths, options);
  try {
    await ensureDatabase(paths.socketDir);
  } catch (err) {
    await stopServer(server, options.log);
    throw err;
  }
  let stopped = false;
  let restarts = 0;
  const supervise = (child: ChildProcess): void => {
    child.once('exit', (code, signal) => {
      if (stopped) return;
      const delayMs = backoffDelayMs(SERVER_RESTART, ++restarts);
      options.log.error(
        { code, signal, logPath: paths.logPath, restartInMs: delayMs },
        'embedded postgres exited unexpectedly; restarting it',
      );
      void restart(delayMs);
    });
  };
  const restart = async (delayMs: number): Promise<void> => {
    await sleep(delayMs, undefined, { ref: false }); // a pending restart does not hold the process open
    if (stopped) return;
    try {
      await stopLeftOver(paths.dataDir, options.log);
      server = await startServer(paths, options);
      // stop() may have run while it started: that server is nobody's, so it goes at once.
      if (stopped) return await stopServer(server, options.log);
      restarts = 0;
      supervise(server);
    } catch (err) {
      options.log.error({ err }, 'embedded postgres did not restart');
      void restart(backoffDelayMs(SERVER_RESTART, ++restarts));
    }
  };
  supervise(server);
  options.log.info({ socketDir: paths.socketDir, dataDir: paths.dataDir, pid: server.pid }, 'embedded postgres ready');
  return {
    connectionString: embeddedPostgresUrl(root),
    stop: async () => {
      stopped = true;
      await stopServer(server, options.log);
    },
  };
}

interface ServerPaths {
  readonly dataDir: string;
  readonly socketDir: string;
  readonly logPath: string;
}

async function startServer(paths: ServerPaths, options: EmbeddedPostgresOptions): Promise<ChildProcess> {
  const server = await spawnServer(paths.dataDir, paths.socketDir, paths.logPath, options);
  try {
    await waitUntilReady(server, paths.socketDir, paths.logPath, options.startTimeoutMs ?? 120_000);
  } catch (err) {
    await stopServer(server, options.log);
    throw err;
  }
  return server;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * How to reach the server started on `root` (DATA_DIR/postgres) while it runs: the superuser on the
 * Unix socket. Benchmarks use it for a raw ceiling on the same store.
 */
export function embeddedPostgresUrl(root: string): string {
  return `postgresql://${SUPERUSER}@/${DATABASE}?host=${encodeURIComponent(socketFolder(resolve(root)))}`;
}

/** DATA_DIR/postgres/socket, or a short folder under the temp dir when that path is too long. */
function socketFolder(root: string): string {
  const inside = join(root, 'socket');
  if (inside.length <= MAX_SOCKET_DIR) return inside;
  return join(tmpdir(), `memstream-pg-${createHash('sha256').update(root).digest('hex').slice(0, 16)}`);
}

/** Mode 0700 and, when we are root, owned by the server's user: PostgreSQL insists on both. */
async function ownedFolder(path: string, launcher: Launcher): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (launcher.osUser) await chown(path, launcher.osUser.uid, launcher.osUser.gid);
}

async function run(options: EmbeddedPostgresOptions, program: string, args: string[]): Promise<void> {
  const { file, args: argv } = options.launcher.command(join(options.binDir, program), args);
  await execFileAsync(file, argv, { timeout: 120_000 });
}

/** initdb into a side folder renamed into place, so a crash during it leaves no half cluster. */
async function initCluster(dataDir: string, root: string, options: EmbeddedPostgresOptions): Promise<void> {
  const partial = join(root, 'data.partial');
  await rm(partial, { recursive: true, force: true });
  options.log.info({ dataDir }, 'initialising the embedded postgres cluster');
  await run(options, 'initdb', [
    '-D',
    partial,
    '-U',
    SUPERUSER,
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-instructions',
  ]);
  await rename(partial, dataDir);
}

async function trimLog(logPath: string): Promise<void> {
  const size = await stat(logPath).then(
    (s) => s.size,
    () => 0,
  );
  if (size > LOG_KEEP_BYTES) await truncate(logPath, 0);
}

async function spawnServer(
  dataDir: string,
  socketDir: string,
  logPath: string,
  options: EmbeddedPostgresOptions,
): Promise<ChildProcess> {
  const settings = Object.entries(SERVER_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const { file, args } = options.launcher.command(join(options.binDir, 'postgres'), [
    '-D',
    dataDir,
    '-k',
    socketDir,
    ...settings,
  ]);
  // The server writes its log straight to the file, not through a pipe to us: it keeps logging,
  // and shuts down cleanly, after this process is gone.
  const logFile = await open(logPath, 'a');
  try {
    const child = spawn(file, args, { stdio: ['ignore', logFile.fd, logFile.fd] });
    await new Promise<void>((ok, fail) => {
      child.once('spawn', ok);
      child.once('error', fail);
    });
    return child;
  } finally {
    await logFile.close();
  }
}

async function waitUntilReady(
  server: ChildProcess,
  socketDir: string,
  logPath: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(
        `embedded postgres exited (${server.exitCode ?? server.signalCode}) while starting:\n${await logTail(logPath)}`,
      );
    }
    const client = new pg.Client({
      host: socketDir,
      port: PORT,
      user: SUPERUSER,
      database: 'postgres',
      connectionTimeoutMillis: 2000,
    });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      // ENOENT/ECONNREFUSED before the socket exists; 57P03 while it replays its WAL.
      if (Date.now() > deadline)
        throw new Error(`embedded postgres did not accept connections within ${timeoutMs} ms: ${String(err)}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await sleep(50);
  }
}

async function ensureDatabase(socketDir: string): Promise<void> {
  const client = new pg.Client({ host: socketDir, port: PORT, user: SUPERUSER, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

async function logTail(logPath: string): Promise<string> {
  const text = await readFile(logPath, 'utf8').catch(() => '');
  return text.split('\n').slice(-20).join('\n');
}

/** Fast shutdown (SIGINT: sessions ended, one checkpoint); immediate (SIGQUIT) if it hangs. */
async function stopServer(server: ChildProcess, log: Logger): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((ok) => server.once('exit', () => ok()));
  server.kill('SIGINT');
  const timer = setTimeout(() => {
    log.warn('embedded postgres did not stop within 20 s; stopping it immediately');
    server.kill('SIGQUIT');
  }, 20_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A server from an earlier process on this folder: its postmaster.pid names a live postgres. It
 * was told to stop when that process died (setpriv's parent-death signal), so it is given time to
 * finish; without that signal (no setpriv) it is asked here. A stale pid file is PostgreSQL's own
 * business: it checks the pid itself.
 */
async function stopLeftOver(dataDir: string, log: Logger): Promise<void> {
  const pidFile = await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = Number(pidFile?.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !(await isPostgres(pid))) return;
  log.warn({ pid }, 'an embedded postgres from an earlier run is still running; waiting for it to stop');
  const deadline = Date.now() + 60_000;
  let asked = false;
  while (await isPostgres(pid)) {
    if (Date.now() > deadline) throw new Error(`postgres ${pid} on ${dataDir} did not stop within 60 s`);
    if (!asked && Date.now() > deadline - 55_000) {
      process.kill(pid, 'SIGINT');
      asked = true;
    }
    await sleep(50);
  }
}

async function isPostgres(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive, but another user's (the server's user, when we are not root).
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => 'postgres'); // no /proc (macOS): trust the pid file
  return cmdline.includes('postgres');
}
