export { OutcomeWaiter, type PendingOutcome } from './outcome-waiter.js';
export {
  createWriter,
  startWriter,
  outcomeError,
  writeSettingsOf,
  type OutcomeLookup,
  type Writer,
  type WriteDeps,
  type WriteOrigin,
  type WriteResult,
  type WriteSettings,
} from './writer.js';
export { actorOf } from './actor.js';
export { readRequestStatus, type MessageExtraction, type RequestStatus } from './request-status.js';
