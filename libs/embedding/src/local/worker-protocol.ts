/** What the inference worker is started with (its workerData). */
import type { LocalModel } from './local-models.js';

export interface WorkerSetup {
  readonly modelDir: string;
  /** What the graph takes and gives (its entry in LOCAL_MODELS; plain data, so it crosses threads). */
  readonly model: LocalModel;
  /** The graph file in modelDir (see LocalModel.graphs). */
  readonly graph: string;
  /** Each text in an inference of its own (see openSentenceModel). */
  readonly oneTextPerRun: boolean;
  readonly threads: number;
}

/** Main thread to worker. Handled strictly in arrival order, so `close` runs after every batch sent before it. */
export type ToWorker =
  | { readonly type: 'embed'; readonly id: number; readonly texts: readonly string[] }
  | { readonly type: 'close' };

/** Worker to main thread. */
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'embedded'; readonly id: number; readonly vectors: Float32Array; readonly truncated: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
