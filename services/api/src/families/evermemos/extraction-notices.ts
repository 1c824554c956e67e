import type { FastifyInstance } from 'fastify';
import { ExtractionWaiter } from '@memstream/episodes';
import type { Fanout } from '@memstream/fanout';

/** The waiter of a server's EverMemOS writes, or undefined when subscribing failed (they answer without waiting). */
export type ExtractionNotices = () => Promise<ExtractionWaiter | undefined>;

/**
 * One subscription to the extractor's notices per server, made by the first write that waits for
 * an extraction (registering routes touches no dependency); a failed one is tried again by the
 * next such write. Flushes and writes that close an episode share it.
 */
export function extractionNotices(app: FastifyInstance, fanout: Fanout): ExtractionNotices {
  let listening: ReturnType<typeof ExtractionWaiter.listen> | undefined;
  app.addHook('onClose', async () => {
    const l = await listening?.catch(() => undefined);
    await l?.stop();
  });
  return async () => {
    listening ??= ExtractionWaiter.listen(fanout);
    return listening.then(
      (l) => l.waiter,
      (err: unknown) => {
        listening = undefined;
        app.log.warn({ err }, 'could not subscribe to extraction notices; this write answers without waiting');
        return undefined;
      },
    );
  };
}
