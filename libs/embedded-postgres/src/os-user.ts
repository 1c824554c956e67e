import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface OsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** The user from /etc/passwd, or undefined. */
export async function findOsUser(name: string): Promise<OsUser | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * PostgreSQL refuses to run as root, so a root process runs it as this system user, creating it
 * (no home, no shell) the first time, as the test infrastructure does.
 */
export async function ensureOsUser(name: string): Promise<OsUser> {
  const existing = await findOsUser(name);
  if (existing) return existing;
  await run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
  const created = await findOsUser(name);
  if (!created) throw new Error(`useradd ${name} succeeded but the user is not in /etc/passwd`);
  return created;
}

/** The absolute path of a program on PATH, or undefined. */
export async function onPath(program: string): Promise<string | undefined> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, program);
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return undefined;
}
