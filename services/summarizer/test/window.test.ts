import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryWindow } from '@memstream/summarizer';

test("the sliding window reproduces spec 004's table (window 14)", () => {
  assert.deepEqual(summaryWindow(5, 14), { start: 0, end: 5 }); // window not full
  assert.deepEqual(summaryWindow(13, 14), { start: 0, end: 13 }); // exactly full
  assert.deepEqual(summaryWindow(15, 14), { start: 2, end: 15 }); // seq 0-1 dropped
  assert.deepEqual(summaryWindow(19, 14), { start: 6, end: 19 }); // seq 0-5 dropped
});

test('the window start is rounded up to even, so a user/assistant pair is never split', () => {
  assert.deepEqual(summaryWindow(14, 14), { start: 2, end: 14 }); // 1 -> 2
  assert.deepEqual(summaryWindow(20, 14), { start: 8, end: 20 }); // 7 -> 8
  assert.deepEqual(summaryWindow(9, 5), { start: 6, end: 9 }); // 5 -> 6
  for (let last = 0; last < 200; last++) assert.equal(summaryWindow(last, 14).start % 2, 0, `start for ${last}`);
});
