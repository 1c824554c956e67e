import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { TIME_ZONES } from '@memstream/schemas';
import { PYTHON_TIME_ZONES, renderPythonTimeZones } from '../scripts/generate-python-time-zones.js';

test('the Python client takes the time zones the server takes: its list is generated from the server’s', async () => {
  const onDisk = await readFile(PYTHON_TIME_ZONES, 'utf8');
  assert.equal(onDisk, renderPythonTimeZones(), 'run npm run python:time-zones');
  // and the file holds the names themselves, each once, in the server's order
  const names = [...onDisk.matchAll(/^ {4}"([^"]+)",$/gm)].map((m) => m[1]);
  assert.deepEqual(names, [...TIME_ZONES]);
});
