import { chmod, copyFile, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Logger } from '@memstream/logging';
import { installedPostgres, postgresPin } from './binaries.js';
import type { OsUser } from './os-user.js';

/** Root's machine-wide cache, the folder scripts/infra keeps its downloads in as root. */
export const MACHINE_CACHE = '/var/cache/memstream';

/**
 * The `bin` folder the server's user can run PostgreSQL from, when we are root. initdb and postgres
 * check their own program with access(2), which judges by the real user and ignores the
 * CAP_DAC_READ_SEARCH the server keeps, so an install under a private folder (a clone in /root, a
 * `mktemp -d`) fails with "invalid binary ... Permission denied". Such an install is copied, once
 * per build, into a root-owned folder of the machine cache that every user may traverse: the
 * user's own folders keep their permissions, and the copy holds nothing but PostgreSQL's programs.
 */
export async function binDirFor(
  user: OsUser,
  install: { dir: string; binDir: string },
  log: Logger,
  cacheDir = MACHINE_CACHE,
): Promise<string> {
  if (await traversableBy(install.binDir, user)) return install.binDir;
  const pin = postgresPin();
  if (!pin) throw new Error(`no prebuilt PostgreSQL for ${process.platform}-${process.arch}`);
  const parent = join(cacheDir, 'postgres');
  const copy = join(parent, `${pin.project}-${pin.version}-${pin.sha256.slice(0, 12)}`);
  const binDir = join(copy, relative(install.dir, install.binDir));
  if ('binDir' in (await installedPostgres(copy))) return binDir;

  await rootOwnedFolder(cacheDir);
  await rootOwnedFolder(parent);
  if (!(await traversableBy(parent, user))) {
    throw new Error(
      `${user.name} cannot reach ${parent}, where PostgreSQL's programs are copied for it: let every user traverse its parents`,
    );
  }
  const staging = `${copy}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  // The headers are for building extensions, not for running: half the files, left out.
  await copyOpenToAll(install.dir, staging, join(dirname(install.binDir), 'include'));
  try {
    await rename(staging, copy);
  } catch (err) {
    // Another process started on the same build and put its copy in place first.
    await rm(staging, { recursive: true, force: true });
    if (!('binDir' in (await installedPostgres(copy)))) throw err;
  }
  log.info(
    { from: install.dir, to: copy, user: user.name },
    "PostgreSQL's programs copied where the server's user can run them",
  );
  return binDir;
}

/**
 * Whether `user` may search every folder from / down to `path`, as the kernel decides it for a
 * process with that uid and gid only (setpriv clears the supplementary groups), along the path as
 * given and along its real one. ACLs are not read: a folder they open is copied needlessly, no worse.
 */
export async function traversableBy(path: string, user: OsUser): Promise<boolean> {
  const paths = [resolve(path), await realpath(path)];
  for (const start of paths) {
    for (let dir = start; ; dir = dirname(dir)) {
      const { uid, gid, mode } = await stat(dir);
      const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
      if ((mode & bit) === 0) return false;
      if (dirname(dir) === dir) break;
    }
  }
  return true;
}

/** Made, or found, owned by root and writable by root alone: the server's user runs what is in it. */
async function rootOwnedFolder(path: string): Promise<void> {
  // Opened only when made here (a umask of 077 would have made it private); a folder found as it is.
  if ((await mkdir(path, { recursive: true })) !== undefined) await chmod(path, 0o755);
  const { uid, mode } = await stat(path);
  if (uid !== 0 || (mode & 0o022) !== 0) {
    throw new Error(
      `${path} must be owned by root and writable by root alone before PostgreSQL's programs are run from it`,
    );
  }
}

/**
 * Copies the tree with folders traversable and files readable by all, programs runnable by all,
 * whatever the umask was, and `skipped` left out. A folder's entries are copied at once: fs.cp,
 * one file after another, took 3.5 s for this install's 1,650 files.
 */
async function copyOpenToAll(from: string, to: string, skipped: string): Promise<void> {
  await mkdir(to);
  await chmod(to, 0o755);
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map(async (entry) => {
      const [source, target] = [join(from, entry.name), join(to, entry.name)];
      if (source === skipped) return;
      if (entry.isDirectory()) return copyOpenToAll(source, target, skipped);
      // The install is unpacked from a zip, which holds regular files only.
      if (!entry.isFile()) throw new Error(`${source} is not a regular file or folder`);
      await copyFile(source, target);
      await chmod(target, ((await stat(source)).mode & 0o111) !== 0 ? 0o755 : 0o644);
    }),
  );
}
