import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { traversableBy } from '../src/reachable-binaries.js';

/**
 * Whether the embedded PostgreSQL's user can reach the programs decides whether they are copied to
 * the machine cache; the judgement is the kernel's rule for a process of that uid and gid alone.
 */
test('a private folder shuts out another user, not its owner, and a symlink does not hide it', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'memstream-traverse-'));
  t.after(() => rm(home, { recursive: true, force: true }));
  const bin = join(home, 'install', 'bin');
  await mkdir(bin, { recursive: true });
  const { uid, gid } = await stat(home);
  const owner = { name: 'owner', uid, gid };
  const stranger = { name: 'stranger', uid: uid + 4242, gid: gid + 4242 };
  const groupmate = { name: 'groupmate', uid: uid + 4242, gid };

  await chmod(home, 0o700);
  assert.equal(await traversableBy(bin, owner), true);
  assert.equal(await traversableBy(bin, stranger), false);
  assert.equal(await traversableBy(bin, groupmate), false);

  await chmod(home, 0o710);
  assert.equal(await traversableBy(bin, groupmate), true);
  assert.equal(await traversableBy(bin, stranger), false);

  // A link in an open folder to the private one: the kernel walks the target's folders too.
  const open = await mkdtemp(join(tmpdir(), 'memstream-traverse-open-'));
  t.after(() => rm(open, { recursive: true, force: true }));
  await chmod(open, 0o755);
  await symlink(join(home, 'install'), join(open, 'install'));
  assert.equal(await traversableBy(join(open, 'install', 'bin'), stranger), false);

  await chmod(home, 0o711);
  assert.equal(await traversableBy(join(open, 'install', 'bin'), stranger), true);
});
