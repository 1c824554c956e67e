import { type LayoutSettings, type ShardGroupsOf, shardGroupsOf } from '@memstream/store';

/**
 * The store layout the suite runs in: STORE_LAYOUT and STORE_LAYOUT_KEEP_PLAIN as `npm run
 * test:partitioned` sets them, and STORE_DISTRIBUTION when the suite runs against a Citus
 * coordinator (docs/development.md), handed on to every process a test starts (whose environment
 * is otherwise exactly what the test gives); the first two also to every store a helper migrates.
 */
export function layoutEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['STORE_LAYOUT', 'STORE_LAYOUT_KEEP_PLAIN', 'STORE_DISTRIBUTION'] as const) {
    const value = process.env[name];
    if (value) out[name] = value;
  }
  return out;
}

/** layoutEnv as the settings `migrate` takes. */
export function testLayout(): LayoutSettings {
  const env = layoutEnv();
  return {
    STORE_LAYOUT: env['STORE_LAYOUT'] === 'partitioned' ? 'partitioned' : 'plain',
    STORE_LAYOUT_KEEP_PLAIN: (env['STORE_LAYOUT_KEEP_PLAIN'] ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  };
}

/**
 * The shard groups of the suite's layout (shardGroupsOf), for a test that calls what the
 * converter calls with them, such as the keyword fold: on Citus a fold over several shards is
 * refused, as the converter never runs it.
 */
export function testShardGroups(): ShardGroupsOf | undefined {
  const env = layoutEnv();
  return shardGroupsOf({
    ...testLayout(),
    STORE_DISTRIBUTION: env['STORE_DISTRIBUTION'] === 'citus' ? 'citus' : 'none',
  });
}
