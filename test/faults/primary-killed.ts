import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { waitFor } from '../helpers/infra.js';
import type { PrivateInfra } from './private-infra.js';
import type { WriteRecord } from './steady-load.js';

/** Writes must be stored again this soon after the primary is lost (issue 47). */
const FAILOVER_LIMIT_MS = 30_000;

/**
 * The machine of the PostgreSQL primary lost: its Patroni and its server SIGKILLed at once, so
 * nothing hands over. Patroni promotes the synchronous standby once the dead leader's lock
 * expires, HAProxy follows; the old primary's machine then comes back and must rejoin as a
 * standby (pg_rewind where its timeline diverged). The cluster has three nodes in strict
 * synchronous mode (postgres-ha.sh), so every write acknowledged after the failover is on two.
 */
export function primaryKilled(infra: PrivateInfra) {
  let killed = '';
  // When the kill is done, not when the row began it: a held write stored in between is no failover.
  let killedAt = 0;
  return {
    name: 'PostgreSQL primary SIGKILLed (with its Patroni): standby promoted, writes resume',
    database: 'postgres-ha' as const,
    async inject() {
      killed = await infra.killHaPrimary();
      killedAt = Date.now();
      await waitFor(
        'a standby promoted',
        async () => {
          const roles = await infra.haRoles();
          return Object.entries(roles).some(([node, role]) => node !== killed && role === 'leader') ? true : undefined;
        },
        FAILOVER_LIMIT_MS,
      );
      await infra.startHaNode(killed);
    },
    async check(records: readonly WriteRecord[], _faultAt: number, t: TestContext) {
      // A held write answers 200 only once it is stored: the first one begun after the kill
      // dates the failover as a client sees it.
      const stored = records.filter((r) => r.kind === 'held' && r.status === 200 && r.startedAt >= killedAt);
      const failoverMs = Math.min(...stored.map((r) => r.endedAt)) - killedAt;
      // Three nodes in strict synchronous mode: the promoted node commits only once the third has
      // each write, so that one is the synchronous standby now and the old primary may rejoin
      // beside it as an asynchronous one. Either way it must be back, and a synchronous standby there.
      const roles = await waitFor(
        `${killed} back as a standby, beside a synchronous one`,
        async () => {
          const now = await infra.haRoles();
          const back = now[killed] === 'sync_standby' || now[killed] === 'replica';
          return back && Object.values(now).includes('sync_standby') ? now : undefined;
        },
        60_000,
      );
      t.diagnostic(JSON.stringify({ failoverS: Math.round(failoverMs / 100) / 10, roles }));
      t.diagnostic((await infra.haRss()).trim().replace(/\n/g, '; '));
      assert.ok(failoverMs <= FAILOVER_LIMIT_MS, `writes stored again ${failoverMs} ms after the kill`);
    },
  };
}
