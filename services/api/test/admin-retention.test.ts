import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EvictRequest } from '@memstream/schemas';
import { cutoffOf } from '../src/families/admin/retention-cutoff.js';

const valid = (retentionPeriod: string) =>
  EvictRequest.safeParse({ retentionPeriod, resourceTypes: ['conversation_groups'] }).success;

test('a retention period is a positive ISO 8601 duration, as memory-service takes it (years and months too)', () => {
  for (const ok of ['P90D', 'P1Y', 'PT24H', 'PT1S', 'PT0.5S', 'P1M', 'P2W', 'P1Y2M3W4DT5H6M7.5S'])
    assert.equal(valid(ok), true, ok);
  for (const bad of ['90 days', 'P', 'PT', 'P0D', 'PT0S', 'P0Y0D', 'P1DT', 'P1H', 'PT1D', 'P-1D', 'p90d', ''])
    assert.equal(valid(bad), false, bad);
});

test('the cutoff counts back in calendar terms: a month before 31 March is the end of February', () => {
  const now = new Date('2026-03-31T12:00:00Z');
  assert.equal(cutoffOf('P1M', now).toISOString(), '2026-02-28T12:00:00.000Z');
  assert.equal(cutoffOf('P90D', now).toISOString(), '2025-12-31T12:00:00.000Z');
  assert.equal(cutoffOf('P1Y', new Date('2028-02-29T00:00:00Z')).toISOString(), '2027-02-28T00:00:00.000Z');
  assert.equal(cutoffOf('PT1H30M', now).toISOString(), '2026-03-31T10:30:00.000Z');
  assert.equal(cutoffOf('P1W', now).toISOString(), '2026-03-24T12:00:00.000Z');
  assert.equal(cutoffOf('PT0.5S', now).toISOString(), '2026-03-31T11:59:59.500Z');
  // longer than recorded time: the cutoff stops at year 1 (PostgreSQL refuses what Date cannot hold)
  assert.equal(cutoffOf('P5808M0764451W8189072D', now).toISOString(), '0001-01-01T00:00:00.000Z');
  assert.equal(cutoffOf('P999999999999Y', now).toISOString(), '0001-01-01T00:00:00.000Z');
});
