import { resolve } from 'node:path';
import { TIME_ZONES } from '@memstream/schemas';
import { writeOrCheck } from './generated-files.js';

/**
 * The Python client's list of the time zones the server takes, written from the server's own
 * (libs/schemas/src/time-zones.ts), so the client refuses exactly what the server would. `--check`
 * fails when the file on disk differs (test/python-time-zones.test.ts runs the same comparison).
 */
export const PYTHON_TIME_ZONES = resolve(import.meta.dirname, '../clients/python/src/memstream/models/_time_zones.py');

export function renderPythonTimeZones(): string {
  return `"""The time zone names the server takes: the tz database names Python's zoneinfo knows, as the
server's document lists them. A fixed list, so the client refuses what the server would.

Generated from libs/schemas/src/time-zones.ts by scripts/generate-python-time-zones.ts
(npm run python:time-zones); do not edit."""

from __future__ import annotations

from typing import Tuple

TIME_ZONES: Tuple[str, ...] = (
${TIME_ZONES.map((zone) => `    ${JSON.stringify(zone)},\n`).join('')})
`;
}

if (process.argv[1] === import.meta.filename)
  await writeOrCheck(new Map([[PYTHON_TIME_ZONES, renderPythonTimeZones()]]), 'npm run python:time-zones');
