import { access, chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { downloadPinnedWheel, readZipEntries, type WheelPin } from '@memstream/wheels';

/**
 * The embedded mode's PostgreSQL comes prebuilt in a Python wheel, which pip downloads: the
 * `pgserver` wheel carries PostgreSQL 16.2 with pgvector 0.6.2 under `pgserver/pginstall/` (bin,
 * lib, share), built relocatable, with only libc and zlib needed from the system; the libraries
 * its programs link (libpq) sit in `pgserver.libs/`, found through a relative rpath, so the
 * wheel's layout is kept. The binaries are the same in every CPython tag of a platform, so one
 * tag is pinned per platform. 0.1.4 is the version the test infrastructure runs
 * (scripts/infra/common.sh says why not a newer one).
 */
const VERSION = '0.1.4';
const PINS: Readonly<Record<string, WheelPin>> = {
  'linux-x64': {
    project: 'pgserver',
    version: VERSION,
    filename: `pgserver-${VERSION}-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl`,
    sha256: 'd595789b47624a3d963aa9aa6359da9be31beb7e61f1a45541953242068b8813',
  },
  'darwin-arm64': {
    project: 'pgserver',
    version: VERSION,
    filename: `pgserver-${VERSION}-cp311-cp311-macosx_11_0_arm64.whl`,
    sha256: '0cc5a64f40749c0e9752cd63784e63dfcf1f3e5ecd2279b6b59f7c64fb520fb4',
  },
  'darwin-x64': {
    project: 'pgserver',
    version: VERSION,
    filename: `pgserver-${VERSION}-cp311-cp311-macosx_10_9_x86_64.whl`,
    sha256: '854fa9394d495b3a332c954b63d4356b56d29220530e6d2aae146821bf87e05a',
  },
};

const INSTALL = 'pgserver/pginstall';
const KEPT = [`${INSTALL}/`, 'pgserver.libs/'];
/** Written last: a folder without it is an interrupted install, never mistaken for a whole one. */
const MARKER = 'installed.json';

export function postgresPin(platform = `${process.platform}-${process.arch}`): WheelPin | undefined {
  return PINS[platform];
}

/** `<repo>/.cache/postgres/pgserver-<version>`, beside the embedding model; found from this file's place. */
export function defaultPostgresDir(): string {
  return fileURLToPath(new URL(`../../../.cache/postgres/pgserver-${VERSION}`, import.meta.url));
}

export function resolvePostgresDir(configured: string | undefined): string {
  return configured ?? defaultPostgresDir();
}

/** The install's `bin` folder when it is complete, or why it is not usable. */
export async function installedPostgres(dir: string): Promise<{ binDir: string } | { problem: string }> {
  const pin = postgresPin();
  if (!pin) return { problem: `no prebuilt PostgreSQL for ${process.platform}-${process.arch}` };
  try {
    const marker = JSON.parse(await readFile(join(dir, MARKER), 'utf8')) as { sha256?: string };
    if (marker.sha256 !== pin.sha256) return { problem: `${dir} holds another PostgreSQL build` };
    await access(join(dir, INSTALL, 'bin', 'postgres'), constants.X_OK);
    return { binDir: join(dir, INSTALL, 'bin') };
  } catch {
    return { problem: `PostgreSQL is not installed in ${dir}` };
  }
}

export interface InstallPostgresOptions {
  readonly dir: string;
  readonly log: (line: string) => void;
}

/**
 * Puts PostgreSQL with pgvector in `dir` from the pinned wheel (sha256 checked), unless a whole
 * install is there. Assembled beside `dir` and renamed into place, so an interrupted install
 * leaves nothing that looks complete.
 */
export async function installPostgres(
  options: InstallPostgresOptions,
): Promise<'present' | 'installed' | 'unsupported'> {
  const pin = postgresPin();
  if (!pin) return 'unsupported';
  if ('binDir' in (await installedPostgres(options.dir))) return 'present';
  const wheel = await downloadPinnedWheel(pin, { log: options.log });
  const files = readZipEntries(wheel, (name) => KEPT.some((prefix) => name.startsWith(prefix)));
  if (!files.has(`${INSTALL}/bin/postgres`)) throw new Error(`${pin.filename} has no ${INSTALL}/bin/postgres`);

  const staging = `${options.dir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  for (const [name, data] of files) {
    const path = join(staging, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data);
  }
  // Zip entries carry no reliable modes here: every program, and the shared objects PostgreSQL
  // loads, must be executable, and everything readable by the unprivileged user it may run as.
  for (const sub of [`${INSTALL}/bin`, `${INSTALL}/lib`, `${INSTALL}/lib/postgresql`, 'pgserver.libs']) {
    const folder = join(staging, sub);
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      await chmod(join(folder, name), 0o755).catch(() => undefined);
    }
  }
  await writeFile(join(staging, MARKER), `${JSON.stringify({ wheel: pin.filename, sha256: pin.sha256 }, null, 2)}\n`);
  await rm(options.dir, { recursive: true, force: true });
  await mkdir(dirname(options.dir), { recursive: true });
  await rename(staging, options.dir);
  return 'installed';
}
