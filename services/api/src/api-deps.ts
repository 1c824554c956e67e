import type { ApiFamily, ErrorShape } from '@memstream/http';
import type { RetainedRecords } from '@memstream/bus';
import type { Fanout, RequestLedger, ResponseStreams } from '@memstream/fanout';
import type { Writer } from '@memstream/ingest';
import type { PipelineGroupIds } from '@memstream/schemas';
import type { QueryEmbedder } from '@memstream/search';
import type { Store } from '@memstream/store';
import type { BoundaryRules } from '@memstream/episodes';
import type { Halves } from './shared/halves.js';
import type { StreamAccess } from './shared/stream-access.js';

/** KAOS agent memory: its default agent and limits; disabled gives KAOS's NullMemory. */
export interface KaosDeps {
  readonly enabled: boolean;
  /** The agent a call belongs to when it sends no X-KAOS-Agent header. */
  readonly defaultAgent: string;
  readonly maxSessions: number;
  readonly maxSessionEvents: number;
}

/** What the families' routes use, whichever half serves them. */
export interface FamilyDeps {
  /** Reads, and the writes' access pre-checks (a refusal costs no event). */
  readonly store: Store;
  /** Publish, then hold the call until the converter stored it (libs/ingest); writes only. */
  readonly write: Writer;
  /** How long a flush waits for its extraction (the write path's sync timeout). */
  readonly syncTimeoutMs: number;
  /** Where episodes end (the extractor's rules): an EverMemOS write that closes one waits for its memories. */
  readonly episodeRules: BoundaryRules;
  /** The gateways' accepted markers, for requests the converter has not reached yet. */
  readonly ledger: RequestLedger;
  /** Live events of conversations (SSE streams), Redis across replicas. */
  readonly fanout: Fanout;
  /** Embeds search queries with the model the indexer stores vectors of; reads only. */
  readonly embedder: QueryEmbedder;
  /** Comment frames on idle SSE streams. */
  readonly sseHeartbeatMs: number;
  /** The memory-service response resumer; undefined when it is disabled. */
  readonly responses: ResponseStreams | undefined;
  readonly kaos: KaosDeps;
  /**
   * Starts the governance worker's eviction sweep at once, where it runs in this process (the
   * embedded mode); elsewhere the worker's own sweep takes a new job (EVICTION_SWEEP_INTERVAL_MS).
   */
  readonly wakeEviction?: (() => void) | undefined;
  /**
   * What the bus still holds (Kafka, or the embedded mode's journal), for reading dead-lettered
   * records; undefined in a process without a bus, where that read answers 503.
   */
  readonly transport?: RetainedRecords | undefined;
  /** The pipeline's consumer group ids, whose lag the console's pipeline route reads from the bus. */
  readonly consumerGroups: PipelineGroupIds;
  /** People's open streams end when their access does (one per server, made by registerApi). */
  readonly access: StreamAccess;
}

/**
 * One API family as a fastify plugin: its docs and error shape, and one function that registers
 * its routes, each on its half (see Halves): the writes on `on.writes`, the reads on `on.reads`.
 * Processes are compositions of these plugins through runApi, each serving one half or both.
 */
export interface ApiFamilyPlugin {
  readonly docs: ApiFamily;
  /** undefined: the family has no error format of its own, and the server's default shape answers. */
  readonly errorShape: ErrorShape | undefined;
  readonly register: (on: Halves, deps: FamilyDeps) => void;
}
