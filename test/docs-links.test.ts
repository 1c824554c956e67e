import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

/** Every relative link of a Markdown file whose file or anchor does not exist. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const linked = path === '' ? file : join(dirname(file), path);
    if (!existsSync(linked)) broken.push(`${target}: no such file`);
    else if (anchor !== undefined && linked.endsWith('.md') && !anchorsIn(readFileSync(linked, 'utf8')).has(anchor))
      broken.push(`${target}: no such heading`);
  }
  return broken;
}

const documents = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

for (const document of documents) {
  test(`every link of ${document.slice(ROOT.length + 1)} reaches a file and heading that exist`, () => {
    assert.deepEqual(brokenLinks(document), []);
  });
}

test('a link to a missing heading or a missing file is reported', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memstream-links-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'other.md'), '# What `npm start` runs\n');
  const page = join(dir, 'page.md');
  writeFileSync(
    page,
    '# Top\n[a](#top) [b](other.md#what-npm-start-runs) [c](#nowhere) [d](missing.md) [e](other.md#gone)\n',
  );
  assert.deepEqual(brokenLinks(page), [
    '#nowhere: no such heading',
    'missing.md: no such file',
    'other.md#gone: no such heading',
  ]);
});
