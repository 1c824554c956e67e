/**
 * A newcomer's first command, `npm ci && npm start`, in a clone under a private folder: a home such
 * as /root, or anything `mktemp -d` made (mode 0700). As root (CI's case) memstream runs PostgreSQL
 * as an unprivileged user, whom that folder shuts out; as an ordinary user the folder is the user's
 * own and the server runs as that user. Either way the server must come up healthy and keep what it
 * is sent, and the folder must stay as private as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { installedPostgres, resolvePostgresDir } from '@memstream/embedded-postgres';
import { embeddedDataDir } from '../helpers/embedded-data-dir.js';
import { call, messagesOf } from '../helpers/evermemos-client.js';

/** The real user id a process runs as, from /proc. */
async function uidOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
}

test('npm start with its PostgreSQL and DATA_DIR inside a private (0700) folder is healthy and keeps a write', async (t) => {
  const installed = resolvePostgresDir(process.env['MEMSTREAM_POSTGRES_DIR']?.trim() || undefined);
  assert.ok('binDir' in (await installedPostgres(installed)), `npm ci installed PostgreSQL in ${installed}`);
  // Where a clone in a private folder has them: its own install of the programs, its own ./data.
  const server = await embeddedDataDir(t, { prefix: 'memstream-private-', dataDirIn: ['clone', 'data'] });
  const home = server.folder;
  assert.equal((await stat(home)).mode & 0o777, 0o700);
  const postgresDir = join(home, 'clone', '.cache', 'postgres');
  await cp(installed, postgresDir, { recursive: true });
  const proc = await server.start({ MEMSTREAM_POSTGRES_DIR: postgresDir, EMBEDDING_PROVIDER: 'hash' });

  const message = {
    group_id: 'private_dir',
    message_id: 'm1',
    create_time: '2025-01-15T10:00:00Z',
    sender: 'ann',
    content: 'Stored by a server started from a private folder',
  };
  const write = await call(proc.base, 'POST', '/api/v1/memories', message);
  assert.equal(write.status, 200, JSON.stringify(write.body));
  const { memories } = await messagesOf(proc.base, 'private_dir');
  assert.deepEqual(
    memories.map((m) => m.content),
    [message.content],
  );

  // What makes the run the case in question: as root, the server is a user the folder shuts out.
  const postmaster = Number(
    (await readFile(join(server.dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  const serverUid = await uidOf(postmaster);
  assert.notEqual(serverUid, 0, 'PostgreSQL never runs as root');
  assert.equal(serverUid !== (await stat(home)).uid, process.getuid!() === 0, `the server runs as uid ${serverUid}`);
  assert.equal((await stat(home)).mode & 0o777, 0o700, 'the folder is as private as it was');
});
