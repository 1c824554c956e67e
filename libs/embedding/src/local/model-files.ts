import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalModel } from './local-models.js';

/**
 * Bumped whenever the installer writes different files for a model (a change to the graph, a
 * file added), so every clone rebuilds its models on its next `npm ci` instead of running stale ones.
 */
export const MODEL_FORMAT = 2;

export interface ModelManifest {
  readonly model: string;
  readonly format: number;
  readonly source: LocalModel['source'];
  readonly files: Record<string, { readonly bytes: number; readonly sha256: string }>;
}

/**
 * `<repo>/.cache/models/<model name>`: inside the clone (so a clone is self-contained and
 * `rm -rf` of it removes everything) and ignored by git. Found from this file's own place, so it
 * does not depend on the directory a process was started from.
 */
export function defaultModelDir(model: LocalModel): string {
  return fileURLToPath(new URL(`../../../../.cache/models/${model.name}`, import.meta.url));
}

/** MEMSTREAM_MODEL_DIR when set, else the model's default folder. */
export function resolveModelDir(configured: string | undefined, model: LocalModel): string {
  return configured === undefined ? defaultModelDir(model) : resolve(configured);
}

/**
 * Why the folder is not a usable install of the pinned model, or undefined when it is. With
 * `hashes` every file is read and hashed (the installer, which can afford half a second); without,
 * only sizes are compared (a process starting up).
 */
export async function checkInstalledModel(
  dir: string,
  model: LocalModel,
  options: { hashes: boolean },
): Promise<string | undefined> {
  let manifest: ModelManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ModelManifest;
  } catch {
    return `no model installed in ${dir}`;
  }
  if (manifest.model !== model.name) return `${dir} holds ${manifest.model}, not ${model.name}`;
  if (manifest.format !== MODEL_FORMAT || manifest.source?.sha256 !== model.source.sha256) {
    return `the model in ${dir} was built by another version of memstream`;
  }
  for (const name of model.files) {
    const expected = manifest.files[name];
    const path = join(dir, name);
    const size = await stat(path).then(
      (s) => s.size,
      () => undefined,
    );
    if (expected === undefined || size !== expected.bytes) return `${path} is missing or has the wrong size`;
    if (options.hashes && (await sha256File(path)) !== expected.sha256)
      return `${path} does not match its recorded sha256`;
  }
  return undefined;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
