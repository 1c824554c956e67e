import {
  appendKaosEvents,
  appendMessages,
  claimConversation,
  deleteKaosSessions,
  evictKaosSessions,
  findKaosSession,
  insertKaosSession,
  lockKaosAgent,
  messagesByIds,
  staleKaosSessions,
  standingOf,
  type AppendResult,
  type KaosSessionRow,
  type KaosViewer,
  type Queryable,
} from '@memstream/store';
import { levelRefusal, type Actor, type KaosEvent, type KaosInput, type Refusal } from '@memstream/schemas';
import { fromKaosEvent } from '../mappers/kaos.js';

export interface KaosApplied {
  readonly result?: Record<string, unknown>;
  readonly refusal?: Refusal;
  /** Canonical messages the events became (user and agent messages), for the memory consumers. */
  readonly stored: AppendResult[];
}

/**
 * Applies one KAOS write in the caller's transaction. A person (an actor of kind user) reaches
 * only sessions they may see; a session they may not see is "not found", and an id someone else
 * holds is "in use", so nothing about it leaks. Agents and writes without an actor reach every
 * session of the agent, as a KAOS pod reaches its own memory.
 */
export async function applyKaos(tx: Queryable, event: KaosInput, replay = false): Promise<KaosApplied> {
  const done = (result: Record<string, unknown>, stored: AppendResult[] = []): KaosApplied => ({ result, stored });
  const refuse = (refusal: Refusal): KaosApplied => ({ refusal, stored: [] });

  switch (event.type) {
    case 'kaos.session.created': {
      const d = event.data;
      // Eviction counts every session of the agent: the agent's lock makes replicas take turns.
      await lockKaosAgent(tx, d.agent);
      let existing = await findKaosSession(tx, d.agent, d.session_id, { forUpdate: true });
      if (existing) {
        const needed = d.get_or_create ? 'reader' : 'manager';
        if (await refusedFor(tx, event.actor, existing, needed))
          return refuse({ code: 'CONFLICT', message: `Session id in use: ${d.session_id}` });
        if (d.get_or_create) return done({ session_id: d.session_id, created: false });
      }
      // A person's creates evict only within the sessions they manage (their share of the agent).
      await evictKaosSessions(tx, d.agent, d.max_sessions, managerOf(event.actor));
      // KAOS's create_session with an id in use starts that session over, empty (unless eviction already took it).
      existing = await findKaosSession(tx, d.agent, d.session_id, { forUpdate: true });
      if (existing) await deleteKaosSessions(tx, [existing.conversation_id]);
      // One conversation per incarnation of the session: a deleted one stays deleted.
      const conversationId = `kaos_${event.id}`;
      const made = await insertKaosSession(tx, {
        agent: d.agent,
        sessionId: d.session_id,
        conversationId,
        appName: d.app_name,
        userId: d.user_id,
        ord: existing?.ord,
      });
      // a writer outside the agent's lock (an import) took the name in between
      if (!made) return refuse({ code: 'CONFLICT', message: `Session id in use: ${d.session_id}` });
      if (d.owner_user_id) await claimConversation(tx, conversationId, d.owner_user_id);
      return done({ session_id: d.session_id, created: true });
    }

    case 'kaos.events.appended': {
      const d = event.data;
      const session = await findKaosSession(tx, d.agent, d.session_id, { forUpdate: true });
      if (!session || (await refusedFor(tx, event.actor, session, 'writer')))
        return refuse({ code: 'RESOURCE_NOT_FOUND', message: `Session not found: ${d.session_id}` });
      if (replay) return { stored: await storedBefore(tx, session, d.events) };
      // Keeping the session within its cap drops its oldest events: only a caller who could
      // delete the session may cause that; a writer's append past the cap is refused whole.
      const mayDrop = !(await refusedFor(tx, event.actor, session, 'manager'));
      const added = await appendKaosEvents(tx, session, d.events, { maxEvents: d.max_session_events, mayDrop });
      if (!added)
        return refuse({
          code: 'FORBIDDEN',
          message: `Session ${d.session_id} holds its limit of ${d.max_session_events} events: adding more drops the oldest, which needs manager access`,
        });
      const fresh = new Set(added.map((e) => e.event_id));
      // Every message event is appended (a resend finds its message), so a redelivery publishes it again.
      const messages = d.events
        .filter((e) => e.event_type === 'user_message' || e.event_type === 'agent_response')
        .map((e) => fromKaosEvent(session, e, event.actor));
      const stored = await appendMessages(
        tx,
        messages.map((message) => ({ message })),
      );
      return done({ added: fresh.size, event_ids: d.events.map((e) => e.event_id) }, stored);
    }

    case 'kaos.session.deleted': {
      const d = event.data;
      const session = await findKaosSession(tx, d.agent, d.session_id, { forUpdate: true });
      // Someone else's session is, to this caller, one that does not exist: deleted false.
      if (!session || (await refusedFor(tx, event.actor, session, 'manager'))) return done({ deleted: false });
      return done({ deleted: (await deleteKaosSessions(tx, [session.conversation_id])) > 0 });
    }

    case 'kaos.sessions.cleaned': {
      const d = event.data;
      await lockKaosAgent(tx, d.agent);
      // A person's cleanup reaches what they manage, whatever the event names (the eviction's rule).
      const viewer = event.actor?.kind === 'user' ? managerOf(event.actor) : { userId: d.visible_to ?? undefined };
      const stale = await staleKaosSessions(tx, d.agent, d.updated_before, viewer);
      return done({ cleaned: await deleteKaosSessions(tx, stale, d.updated_before) });
    }
  }
}

/**
 * What an append stored the first time, read back for a redelivery to publish again. Never written
 * again: the session may have been started over since (a create with its id, in a later record of
 * the same partition), and its new life must not receive the old one's events.
 */
async function storedBefore(tx: Queryable, session: KaosSessionRow, events: readonly KaosEvent[]) {
  const ids = events.filter((e) => e.event_type === 'user_message' || e.event_type === 'agent_response');
  const found = await messagesByIds(
    tx,
    session.conversation_id,
    ids.map((e) => e.event_id),
  );
  return found.map((message): AppendResult => ({ duplicate: true, message, outcomeRecorded: false }));
}

/** The sessions a caller's eviction may choose from: a person's those they manage; otherwise all. */
function managerOf(actor: Actor | undefined): KaosViewer {
  return actor?.kind === 'user' ? { userId: actor.id } : {};
}

/** True when a person's standing in the session's conversation is below `needed`. */
async function refusedFor(
  tx: Queryable,
  actor: Actor | undefined,
  session: KaosSessionRow,
  needed: 'reader' | 'writer' | 'manager',
): Promise<boolean> {
  return levelRefusal(await standingOf(tx, actor, session.conversation_id), needed, 'Using') !== undefined;
}
