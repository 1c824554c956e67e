/**
 * The inference worker's entry: loads the model, then embeds batches one at a time, in the order
 * they arrive. Inference blocks the thread it runs on (see sentence-model.ts), so it gets a thread
 * of its own and the main thread stays free to serve requests meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSentenceModel } from './sentence-model.js';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-protocol.js';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

try {
  const model = await openSentenceModel(setup.modelDir, setup.threads);
  let previous = Promise.resolve();
  port.on('message', (message: ToWorker) => {
    previous = previous.then(async () => {
      if (message.type === 'close') {
        await model.release();
        port.close();
        return;
      }
      try {
        const { vectors, truncated } = await model.embedBatch(message.texts);
        send({ type: 'embedded', id: message.id, vectors, truncated }, [vectors.buffer as ArrayBuffer]);
      } catch (err) {
        send({ type: 'error', id: message.id, message: reason(err) });
      }
    });
  });
  send({ type: 'ready' });
} catch (err) {
  send({ type: 'failed', message: reason(err) });
  port.close();
}
