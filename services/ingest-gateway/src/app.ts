import type { FastifyInstance } from 'fastify';
import type { Bus } from '@memstream/bus';
import type { Fanout, RequestLedger } from '@memstream/fanout';
import { errorHandlerFor, everMemOsErrorShape } from '@memstream/http';
import { OutcomeWaiter } from './outcome-waiter.js';
import { createWriter, type WriteSettings } from './write-request.js';
import { registerPostMemory } from './routes/evermemos/post-memory.js';
import { registerConversationMeta } from './routes/evermemos/conversation-meta.js';

export interface GatewayDeps {
  readonly bus: Bus;
  /** Where converters announce outcomes (Redis across processes, in-memory inside one). */
  readonly fanout: Fanout;
  readonly ledger: RequestLedger;
  readonly settings: WriteSettings;
}

/**
 * Registers the gateway's routes on a server the caller owns (its own process, or the embedded
 * all-in-one). Each API family is its own encapsulated plugin with its own error shape.
 */
export async function registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { waiter, stop } = await OutcomeWaiter.listen(deps.fanout, app.log);
  app.addHook('onClose', async () => stop());
  const write = createWriter({ bus: deps.bus, ledger: deps.ledger, waiter, settings: deps.settings });
  await app.register(async (evermemos) => {
    evermemos.setErrorHandler(errorHandlerFor(everMemOsErrorShape));
    registerPostMemory(evermemos, write);
    registerConversationMeta(evermemos, write);
  });
}

/** The gateway's settings from its configuration. */
export function writeSettingsOf(config: { REQUEST_SYNC_TIMEOUT_MS: number; GATEWAY_MAX_IN_FLIGHT: number; KAFKA_MAX_MESSAGE_BYTES: number }): WriteSettings {
  return {
    syncTimeoutMs: config.REQUEST_SYNC_TIMEOUT_MS,
    maxInFlight: config.GATEWAY_MAX_IN_FLIGHT,
    maxEventBytes: config.KAFKA_MAX_MESSAGE_BYTES,
  };
}
