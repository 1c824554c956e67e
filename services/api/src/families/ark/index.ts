import type { ApiFamilyPlugin } from '../../api-deps.js';
import { arkDocs } from './docs.js';
import { arkErrorShape } from './error-shape.js';
import { registerArkMessages } from './messages.js';
import { registerSessionWrites } from './session-complete.js';
import { registerStream } from './stream.js';
import { registerArkPurge } from './purge.js';
import { registerArkStreamPurge } from './stream-purge.js';
import { registerArkStreamStatistics } from './stream-statistics.js';

/**
 * ARK's Memory API. Writes: a batch of messages, a session's completion, relayed stream chunks.
 * Reads: stored messages, sessions, and a session as Server-Sent Events. ARK's controller points
 * at one address; the edge sends each call to the process that serves it.
 */
export const ark: ApiFamilyPlugin = {
  docs: arkDocs,
  errorShape: arkErrorShape,
  register(on, deps) {
    registerArkMessages(on, deps);
    if (on.reads)
      registerStream(on.reads, {
        store: deps.store,
        fanout: deps.fanout,
        heartbeatMs: deps.sseHeartbeatMs,
        access: deps.access,
      });
    if (on.writes) registerSessionWrites(on.writes, deps);
    if (on.writes) registerArkPurge(on.writes, deps);
    if (on.writes) registerArkStreamPurge(on.writes, deps);
    if (on.reads) registerArkStreamStatistics(on.reads, deps);
  },
};
