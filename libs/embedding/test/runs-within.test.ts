import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runsWithin } from '../src/local/sentence-model.js';

test('runs of texts stay within the padded-token budget, in order, covering every text once', () => {
  assert.deepEqual(runsWithin([], 1024), []);
  assert.deepEqual(runsWithin([10, 10, 10], 1024), [[0, 3]]);
  // padded to the longest: 4 × 256 fits, a fifth does not
  assert.deepEqual(runsWithin([256, 256, 256, 256, 256], 1024), [
    [0, 4],
    [4, 5],
  ]);
  // a short text followed by a long one: the run is charged at the long one's length
  assert.deepEqual(runsWithin([20, 20, 20, 300, 300], 1024), [
    [0, 3],
    [3, 5],
  ]);
  // one text longer than the budget is a run of its own, never dropped
  assert.deepEqual(runsWithin([5, 2000, 5], 1024), [
    [0, 1],
    [1, 2],
    [2, 3],
  ]);
});
