import type { Bus } from '@memstream/bus';
import type { Fanout } from '@memstream/fanout';
import type { BoundaryRules } from '@memstream/episodes';
import type { ShardGroupsOf, Store } from '@memstream/store';
import type { MetaCache } from '../meta-cache.js';

/** What every converter handler works with. */
export interface ConverterDeps {
  readonly store: Store;
  readonly bus: Bus;
  readonly fanout: Fanout;
  readonly metas: MetaCache;
  /** Where episodes end: a flush closes the open one by them. */
  readonly rules: BoundaryRules;
  /** How a flush of several groups is split so that each statement writes one shard group; unset: not split. */
  readonly shardGroups?: ShardGroupsOf | undefined;
}
