/**
 * Runs items in parallel lanes: items with the same key share a lane and run one after another
 * in their given order, at most `concurrency` lanes at once. The server numbers a group's
 * messages in arrival order, so two documents of one group must never be sent side by side.
 */
export async function runInLanes<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const lanes = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const lane = lanes.get(key);
    if (lane) lane.push(item);
    else lanes.set(key, [item]);
  }
  const queue = [...lanes.values()];
  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const lane = queue[next++]!;
      for (const item of lane) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, queue.length)) }, worker));
}
