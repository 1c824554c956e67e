import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installLocalModel, LOCAL_MODELS } from '@memstream/embedding';
import { checkInstalledModel } from '../src/local/model-files.js';
import { installedDir } from './installed-dir.js';

const model = LOCAL_MODELS['all-minilm-l6-v2'];
const modelDir = installedDir('all-minilm-l6-v2');

async function copyOfModel(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memstream-model-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await cp(modelDir, dir, { recursive: true });
  return dir;
}

test('the installed model verifies, and installing again finds it without touching the network', async () => {
  assert.equal(await checkInstalledModel(modelDir, model, { hashes: true }), undefined);
  // A download would log pip's lines (or the reason for installing): none means none was tried.
  const lines: string[] = [];
  assert.equal(await installLocalModel({ model, modelDir, log: (line) => lines.push(line) }), 'present');
  assert.deepEqual(lines, []);
});

test('a changed byte is caught by the hashes, a missing file or manifest by the quick check', async (t) => {
  const dir = await copyOfModel(t);
  const tokenizer = join(dir, 'tokenizer.json');
  const bytes = await readFile(tokenizer);
  bytes[10] = bytes[10]! ^ 1;
  await writeFile(tokenizer, bytes);
  assert.equal(await checkInstalledModel(dir, model, { hashes: false }), undefined, 'the size still matches');
  assert.match(
    (await checkInstalledModel(dir, model, { hashes: true }))!,
    /tokenizer\.json does not match its recorded sha256/,
  );

  await rm(join(dir, 'model.onnx'));
  assert.match((await checkInstalledModel(dir, model, { hashes: false }))!, /model\.onnx is missing/);
  await rm(join(dir, 'manifest.json'));
  assert.match((await checkInstalledModel(dir, model, { hashes: false }))!, /no model installed/);
});

test('a model built by another version of the conversion is not used', async (t) => {
  const dir = await copyOfModel(t);
  const manifestPath = join(dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { format: number };
  await writeFile(manifestPath, JSON.stringify({ ...manifest, format: manifest.format + 1 }));
  assert.match((await checkInstalledModel(dir, model, { hashes: false }))!, /another version of memstream/);
});
