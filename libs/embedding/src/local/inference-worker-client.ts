import { Worker } from 'node:worker_threads';
import { AppError } from '@memstream/errors';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-protocol.js';

export interface InferenceWorker {
  embed(texts: readonly string[]): Promise<{ vectors: Float32Array; truncated: number }>;
  /** Finishes the batches already sent, then ends the thread. */
  close(): Promise<void>;
}

type Pending = {
  resolve: (value: { vectors: Float32Array; truncated: number }) => void;
  reject: (err: AppError) => void;
};

/**
 * Starts the inference worker and resolves once its model is loaded (or rejects with why it could
 * not load). If the thread dies later, every batch it held fails with the reason and `onExit`
 * tells the owner, which may start another.
 */
export function startInferenceWorker(setup: WorkerSetup, onExit: (reason: string) => void): Promise<InferenceWorker> {
  const worker = spawn(setup);
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  return new Promise<InferenceWorker>((resolve, reject) => {
    let ready = false;
    let dead = false;
    let loadError: string | undefined;
    // 'error' is followed by 'exit': the first one to arrive says why.
    const fail = (reason: string) => {
      if (dead) return;
      dead = true;
      // A lost thread is the machine's trouble (memory, most likely), not the texts': retriable.
      for (const p of pending.values()) p.reject(new AppError('DEPENDENCY_UNAVAILABLE', reason));
      pending.clear();
      if (!ready) reject(new Error(loadError ?? reason));
      else if (!closing) onExit(reason);
    };
    worker.on('error', (err) => fail(`inference worker crashed: ${err.message}`));
    worker.on('exit', (code) => fail(closing ? 'embedder closed' : `inference worker exited (code ${code})`));
    worker.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'ready':
          ready = true;
          resolve({
            embed(texts) {
              if (closing) return Promise.reject(new AppError('SYSTEM_ERROR', 'embedder closed'));
              const id = nextId++;
              return new Promise((resolveBatch, rejectBatch) => {
                pending.set(id, { resolve: resolveBatch, reject: rejectBatch });
                worker.postMessage({ type: 'embed', id, texts } satisfies ToWorker);
              });
            },
            async close() {
              if (!closing) worker.postMessage({ type: 'close' } satisfies ToWorker);
              closing = true;
              await exited;
            },
          });
          return;
        case 'failed':
          // Rejected with this reason when the thread has exited (see fail), so a failed load
          // leaves no thread behind it.
          closing = true;
          loadError = message.message;
          return;
        case 'embedded':
          pending.get(message.id)?.resolve({ vectors: message.vectors, truncated: message.truncated });
          pending.delete(message.id);
          return;
        case 'error':
          pending.get(message.id)?.reject(new AppError('SYSTEM_ERROR', `local embedding failed: ${message.message}`));
          pending.delete(message.id);
          return;
      }
    });
  });
}

/**
 * Compiled (`npm start`, the image), this file is `dist/local/inference-worker-client.js` and the
 * worker's entry is plain JavaScript beside it. From the sources (tests, benches), the entry is
 * TypeScript, and on Node 20 a worker loads its entry module before `--import tsx` takes effect in
 * it, so it is reached through a one-line bootstrap that registers tsx first.
 */
function spawn(setup: WorkerSetup): Worker {
  const options = { workerData: setup, name: 'memstream-embedding' };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./inference-worker.js', import.meta.url), options);
  const entry = new URL('./inference-worker.ts', import.meta.url);
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
