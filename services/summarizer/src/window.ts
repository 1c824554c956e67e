/**
 * The sliding window of spec 004: the last `windowSize` messages up to `lastSeq`, its start
 * rounded up to even so a user/assistant pair (seq 2k, 2k+1) is never split.
 * windowSize 14: 5 -> (0, 5), 13 -> (0, 13), 15 -> (2, 15), 19 -> (6, 19).
 */
export function summaryWindow(lastSeq: number, windowSize: number): { start: number; end: number } {
  let start = Math.max(0, lastSeq - windowSize + 1);
  if (start % 2 !== 0) start += 1;
  return { start, end: lastSeq };
}
