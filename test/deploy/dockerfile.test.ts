import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT } from './catalogue.js';
import { deployTools } from './tools.js';

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

const dockerfile = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const stages = dockerfile.reduce<Instruction[][]>(
  (all, i) => (i.keyword === 'FROM' ? [...all, [i]] : [...all.slice(0, -1), [...(all.at(-1) ?? []), i]]),
  [],
);
const stageName = (stage: Instruction[]) => stage[0]!.args.split(/\s+as\s+/i)[1];

test('the Dockerfile passes hadolint', () => {
  const result = spawnSync(deployTools().hadolint, ['--no-color', join(ROOT, 'Dockerfile')], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

test('the image is built in one stage and run from a slim one, on pinned base images', () => {
  assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
  for (const stage of stages) {
    const image = stage[0]!.args.split(/\s+/)[0]!;
    const tag = image.includes('@') ? 'digest' : image.split(':')[1];
    assert.ok(tag !== undefined && tag !== 'latest', `FROM ${image} is not pinned`);
  }
  const build = stages.find((s) => s.some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args)));
  assert.ok(build, 'no stage runs npm ci');
  const runtime = stages.at(-1)!;
  assert.notEqual(runtime, build, 'the runtime stage is not the build stage');
  assert.match(runtime[0]!.args, /-slim\b/, 'the runtime stage is not a slim image');
  assert.ok(
    !runtime.some((i) => i.keyword === 'RUN' && /\bnpm (ci|install)\b/.test(i.args)),
    'the runtime stage installs packages',
  );
});

test('the runtime stage takes the whole built app folder, so whatever the install wrote comes along', () => {
  const runtime = stages.at(-1)!;
  const name = stageName(stages.find((s) => s.some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args)))!);
  const copies = runtime.filter((i) => i.keyword === 'COPY' && i.args.includes(`--from=${name}`));
  assert.ok(
    copies.some((c) => /\s\/app\s+\/app$/.test(c.args)),
    `expected COPY --from=${name} /app /app, found: ${copies.map((c) => c.args).join('; ')}`,
  );
});

test('the image runs as a numeric non-root user (Kubernetes can then enforce runAsNonRoot)', () => {
  const user = stages
    .at(-1)!
    .filter((i) => i.keyword === 'USER')
    .at(-1);
  assert.ok(user, 'no USER in the runtime stage');
  const uid = user.args.split(':')[0]!;
  assert.match(uid, /^\d+$/, `USER ${user.args} is not numeric`);
  assert.notEqual(Number(uid), 0);
});

test('the entry point runs the service its first argument names, and refuses one that does not exist', () => {
  const entry = stages.at(-1)!.find((i) => i.keyword === 'ENTRYPOINT');
  assert.ok(entry);
  const script = (JSON.parse(entry.args) as string[])[0]!.replace(/^\/app\//, '');
  accessSync(join(ROOT, script), constants.X_OK);
  const unknown = spawnSync(join(ROOT, script), ['no-such-service'], { encoding: 'utf8' });
  assert.equal(unknown.status, 64);
  for (const service of ['ingest-gateway', 'converter', 'summarizer', 'read-api', 'setup'])
    assert.match(unknown.stderr, new RegExp(`\\b${service}\\b`));
});

test('.dockerignore leaves out what the build never needs and keeps what it does', () => {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  // the subset of the syntax used here: a name at the root, or **/name at any depth
  const ignored = (path: string) =>
    patterns.some((p) =>
      p.startsWith('**/') ? path.split('/').includes(p.slice(3)) : path === p || path.startsWith(`${p}/`),
    );
  for (const path of ['.git', 'node_modules', 'libs/bus/node_modules', '.cache', '.env'])
    assert.ok(ignored(path), `${path} is sent to the build`);
  // tsconfig.json and scripts/build: the install compiles the sources inside the image build
  const needed = [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'libs',
    'services',
    'scripts/build',
    'scripts/start-service.sh',
  ];
  const tracked = execFileSync('git', ['ls-files', ...needed], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '');
  assert.ok(tracked.length > 50);
  for (const file of tracked) assert.ok(!ignored(file), `${file} is needed in the image but ignored`);
});
