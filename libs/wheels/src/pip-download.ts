import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface WheelPin {
  readonly project: string;
  readonly version: string;
  readonly filename: string;
  readonly sha256: string;
}

export interface PipDownloadOptions {
  readonly log: (line: string) => void;
  /** pip's environment; unset, this process's, so PIP_INDEX_URL, PIP_FIND_LINKS and the proxy variables apply. */
  readonly env?: NodeJS.ProcessEnv;
  /** For the whole download; pip's own per-request timeout and retries come from its configuration. */
  readonly timeoutMs?: number;
}

/** pip answered, but not with the pinned file: trying again would not help. */
export class PinnedWheelError extends Error {
  override readonly name = 'PinnedWheelError';
}

/**
 * The pinned wheel's bytes, downloaded by `python3 -m pip download`: pip finds the package the way
 * it does for every other install on the machine (its index, mirror, find-links, proxy and
 * certificates, from pip.conf or PIP_* variables) and keeps its own HTTP cache, so nothing here
 * knows a registry. The file must be the pinned one by name and by sha256.
 */
export async function downloadPinnedWheel(pin: WheelPin, options: PipDownloadOptions): Promise<Buffer> {
  const dest = await mkdtemp(join(tmpdir(), 'memstream-wheel-'));
  try {
    const args = [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--progress-bar=off',
      ...targetOf(pin.filename),
      '--dest',
      dest,
      `${pin.project}==${pin.version}`,
    ];
    await runPip(args, options);
    const saved = await readdir(dest);
    if (!saved.includes(pin.filename)) {
      throw new PinnedWheelError(
        `pip downloaded ${saved.join(', ') || 'nothing'} for ${pin.project}==${pin.version}, not ${pin.filename}`,
      );
    }
    const wheel = await readFile(join(dest, pin.filename));
    const digest = createHash('sha256').update(wheel).digest('hex');
    if (digest !== pin.sha256)
      throw new PinnedWheelError(`${pin.filename} has sha256 ${digest}, expected ${pin.sha256}`);
    return wheel;
  } finally {
    await rm(dest, { recursive: true, force: true });
  }
}

/**
 * pip's target options for the pinned file's own tags (PEP 427 name: project-version-python-abi-
 * platform.whl), so the same file is chosen whatever Python runs pip: the PostgreSQL wheel is pinned
 * for CPython 3.11, and its programs do not depend on which Python is installed. A pure wheel
 * (platform `any`) needs none.
 */
export function targetOf(filename: string): string[] {
  const tags = filename.replace(/\.whl$/, '').split('-');
  if (tags.length < 5) throw new Error(`${filename} is not a wheel's file name`);
  const [python, abi, platform] = tags.slice(-3) as [string, string, string];
  if (platform === 'any') return [];
  const implementation = python.slice(0, 2);
  return [
    ...platform.split('.').flatMap((tag) => ['--platform', tag]),
    '--implementation',
    implementation,
    '--python-version',
    python.slice(2),
    '--abi',
    abi,
  ];
}

async function runPip(args: readonly string[], options: PipDownloadOptions): Promise<void> {
  const pip = spawn('python3', args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 600_000,
  });
  const last: string[] = [];
  for (const stream of [pip.stdout, pip.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      options.log(`pip: ${line}`);
      last.push(line);
      if (last.length > 5) last.shift();
    });
  }
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      pip.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'ENOENT'
            ? new Error('python3 is not on PATH: pip downloads the pinned wheels, so Python 3 with pip is needed', {
                cause: err,
              })
            : err,
        ),
      );
      pip.once('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
    },
  );
  if (code !== 0) {
    const ended =
      signal === 'SIGTERM' ? `was stopped after ${options.timeoutMs ?? 600_000} ms` : `exited with ${code ?? signal}`;
    throw new Error(`python3 -m pip download ${ended}: ${last.join(' / ')}`);
  }
}
