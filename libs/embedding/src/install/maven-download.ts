import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface JarPin {
  /** groupId:artifactId:version */
  readonly artifact: string;
  readonly filename: string;
  readonly sha256: string;
}

export interface MavenDownloadOptions {
  readonly log: (line: string) => void;
  /** For the whole download. */
  readonly timeoutMs?: number;
}

/**
 * The pinned jar's bytes, fetched by `mvn dependency:copy`: Maven finds it the way it does for the
 * Kafka jars the infrastructure scripts fetch (its settings.xml, mirrors, proxy, and its local
 * repository as a cache, so a second install reads it from disk), and nothing here names a
 * registry. The file must be the pinned one by name and by sha256.
 */
export async function downloadPinnedJar(pin: JarPin, options: MavenDownloadOptions): Promise<Buffer> {
  const dest = await mkdtemp(join(tmpdir(), 'memstream-jar-'));
  try {
    await runMaven(
      ['-q', '-B', '-Dstyle.color=never', 'dependency:copy', `-Dartifact=${pin.artifact}`, `-DoutputDirectory=${dest}`],
      options,
    );
    const saved = await readdir(dest);
    if (!saved.includes(pin.filename)) {
      throw new Error(`mvn copied ${saved.join(', ') || 'nothing'} for ${pin.artifact}, not ${pin.filename}`);
    }
    const jar = await readFile(join(dest, pin.filename));
    const digest = createHash('sha256').update(jar).digest('hex');
    if (digest !== pin.sha256) throw new Error(`${pin.filename} has sha256 ${digest}, expected ${pin.sha256}`);
    return jar;
  } finally {
    await rm(dest, { recursive: true, force: true });
  }
}

async function runMaven(args: readonly string[], options: MavenDownloadOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  // From an empty folder: a pom.xml in the working directory would make it a project build.
  const cwd = await mkdtemp(join(tmpdir(), 'memstream-mvn-'));
  try {
    const mvn = spawn('mvn', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    const last: string[] = [];
    for (const stream of [mvn.stdout, mvn.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        options.log(`mvn: ${line}`);
        last.push(line);
        if (last.length > 5) last.shift();
      });
    }
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        mvn.once('error', (err: NodeJS.ErrnoException) =>
          reject(
            err.code === 'ENOENT'
              ? new Error('mvn is not on PATH: Maven (with a JDK) downloads the pinned jar', { cause: err })
              : err,
          ),
        );
        mvn.once('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
      },
    );
    if (code !== 0) {
      const ended = signal === 'SIGTERM' ? `was stopped after ${timeoutMs} ms` : `exited with ${code ?? signal}`;
      throw new Error(`mvn dependency:copy ${ended}: ${last.join(' / ')}`);
    }
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
