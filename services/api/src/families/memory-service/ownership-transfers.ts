import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { findTransferOffer, listTransferOffers, type Store, type TransferOffer } from '@memstream/store';
import {
  CreateOwnershipTransferRequest,
  ListOwnershipTransfersQuery,
  MemoryServiceAcceptedBody,
  OwnershipTransferBody,
  OwnershipTransferPage,
  TransferIdParams,
} from '@memstream/schemas';
import { memoryServiceDocs as docs } from './docs.js';
import { send, type MemoryServiceHandlers } from './handlers.js';
import type { Halves } from '../../shared/halves.js';

/** The person whose offers a caller sees; undefined for a caller who reaches every conversation. */
function viewerOf(request: FastifyRequest): string | undefined {
  const principal = principalOf(request);
  return principal.kind === 'user' ? principal.userId : undefined;
}

function noTransfer(transferId: string): AppError {
  return new AppError('RESOURCE_NOT_FOUND', `No pending ownership transfer: ${transferId}`, {
    details: { resource: 'transfer', id: transferId },
  });
}

/** A pending offer the caller is party to (or reaches everything); anyone else learns nothing of it (404). */
async function visibleOffer(store: Store, request: FastifyRequest, transferId: string): Promise<TransferOffer> {
  const viewer = viewerOf(request);
  const offer = await findTransferOffer(store, transferId, viewer);
  const party = viewer === undefined || offer?.from_user_id === viewer || offer?.to_user_id === viewer;
  if (offer?.status !== 'pending' || !party) throw noTransfer(transferId);
  return offer;
}

function offerView(t: TransferOffer) {
  return {
    id: t.id,
    conversationId: t.conversation_id,
    ...(t.conversation_title === null ? {} : { conversationTitle: t.conversation_title }),
    fromUserId: t.from_user_id,
    toUserId: t.to_user_id,
    createdAt: t.created_at.toISOString(),
  };
}

/**
 * `/v1/ownership-transfers`, the memory-service's transfer API from its commit a9c6936a on: an
 * offer by its own id, listed for both its parties. The offer is the same as the one
 * `/{id}/transfer-ownership` makes (one pending per conversation, either route sees the other's),
 * but this route keeps this version's rule: only a member is offered the conversation (400).
 * Offers live on after they end here, with their outcome; this API, like the service, shows only
 * pending ones.
 */
export function registerOwnershipTransferRoutes({ writes, reads }: Halves, h: MemoryServiceHandlers, store: Store) {
  const base = '/v1/ownership-transfers';
  writes?.post(
    base,
    docs.route({
      summary: 'Offer ownership to a member of the conversation (owner only); 409 while an offer is pending',
      body: CreateOwnershipTransferRequest,
      responses: { 201: OwnershipTransferBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId, newOwnerUserId } = request.body;
      const out = await h.transfer(request, conversationId, newOwnerUserId, 'members');
      // (202 with a request id: the offer is on the bus, not applied yet)
      if ('requestId' in out.body) return send(reply, out);
      const offered = await visibleOffer(store, request, (out.body as { id: string }).id);
      return send(reply, { status: 201, body: offerView(offered) });
    },
  );
  reads?.get(
    base,
    docs.route({
      summary: "The caller's pending ownership offers, made (sender), received (recipient) or both, oldest first",
      querystring: ListOwnershipTransfersQuery,
      responses: { 200: OwnershipTransferPage },
    }),
    async (request) => {
      const { role, afterCursor, limit } = request.query;
      const page = await listTransferOffers(store, { viewer: viewerOf(request), role, after: afterCursor, limit });
      if (!page) throw new AppError('INVALID_PARAMETER', 'afterCursor: no ownership transfer of yours has this id');
      return { data: page.items.map(offerView), afterCursor: page.more ? page.items.at(-1)!.id : null };
    },
  );
  reads?.get(
    `${base}/:transferId`,
    docs.route({
      summary: 'A pending ownership offer, for its sender and its recipient',
      params: TransferIdParams,
      responses: { 200: OwnershipTransferBody },
    }),
    async (request) => offerView(await visibleOffer(store, request, request.params.transferId)),
  );
  writes?.post(
    `${base}/:transferId/accept`,
    docs.route({
      summary: 'Accept the ownership offered to you: you become the owner, the former owner a manager',
      params: TransferIdParams,
      responses: { 204: 'Accepted: ownership has moved', 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { transferId } = request.params;
      // The sender and anyone else who names a live offer get 403 from settle, as from the service.
      const offer = await findTransferOffer(store, transferId, undefined);
      if (offer?.status !== 'pending') throw noTransfer(transferId);
      const out = await h.settle(request, offer.conversation_id, true, transferId);
      return send(reply, out.status === 200 ? { status: 204, body: undefined } : out);
    },
  );
  // Ending an offer: the owner withdraws it, its recipient declines it (the service's DELETE).
  writes?.delete(
    `${base}/:transferId`,
    docs.route({
      summary: 'End a pending ownership transfer: the owner withdraws it, its recipient declines it',
      params: TransferIdParams,
      responses: { 204: 'Ended', 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => send(reply, await h.withdraw(request, request.params.transferId)),
  );
}
