/**
 * The inference worker's entry: loads the model, then embeds batches one at a time, in the order
 * they arrive. Inference blocks the thread it runs on (see sentence-model.ts), so it gets a thread
 * of its own and the main thread stays free to serve requests meanwhile.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openSentenceModel } from './sentence-model.js';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-protocol.js';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Inference is background work next to everything else the process does (a held write waits for
 * nothing here), and at ~10 ms of CPU per text it would take a core from the write path during a
 * burst. On Linux a nice value belongs to a thread and setpriority(0) names the calling one, so
 * this lowers this thread and the ONNX Runtime threads it creates after it; the main thread keeps
 * its priority. Elsewhere it would lower the whole process, so it is left alone there.
 */
const INFERENCE_NICE = 10;
if (process.platform === 'linux') {
  try {
    setPriority(Math.max(getPriority(), INFERENCE_NICE));
  } catch {
    // Not permitted (a sandbox without setpriority): inference then runs at the process's priority.
  }
}

try {
  const model = await openSentenceModel(setup.modelDir, setup.model, setup.graph, setup.threads, setup.oneTextPerRun);
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
