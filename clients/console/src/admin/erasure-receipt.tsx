import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../shell/session.js';
import { linkProps } from '../shell/router.js';
import { Empty, ErrorBox, isAbsent, When } from '../shell/ui.js';
import { Table } from '../shell/table.js';
import { ended, STORES, type Family, type Receipt } from './receipt.js';

/** How often an open receipt is read again until its job ends. */
const POLL_MS = 1000;

/**
 * An erasure's receipt, read again every second until the job has completed or failed; its
 * status is a polite live region, so a screen reader hears the job finish.
 */
export function ErasureReceiptPage({ session, id }: { session: Session; id: string }) {
  const [receipt, setReceipt] = useState<Receipt | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const r = await session.client.admin.erasure(id, { signal: abort.signal });
        setReceipt(r);
        setError(undefined);
        if (ended(r)) return;
      } catch (err) {
        if (abort.signal.aborted) return;
        setError(err);
        if (isAbsent(err)) return;
      }
      if (!abort.signal.aborted) timer = setTimeout(read, POLL_MS);
    };
    void read();
    return () => {
      abort.abort();
      if (timer) clearTimeout(timer);
    };
  }, [session, id]);
  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a {...linkProps('/admin')}>Admin</a> / erasure
      </p>
      <h1 id="page-title" tabIndex={-1}>
        Erasure receipt{receipt ? `: ${receipt.userId}` : ''}
      </h1>
      {error !== undefined && (isAbsent(error) ? <Empty>No erasure with this id.</Empty> : <ErrorBox error={error} />)}
      {!receipt && error === undefined && (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      )}
      {receipt && <ReceiptBody receipt={receipt} />}
    </section>
  );
}

function ReceiptBody({ receipt: r }: { receipt: Receipt }) {
  return (
    <>
      <dl class="facts">
        <dt>Status</dt>
        <dd aria-live="polite">
          <span class={`badge ${r.status}`} data-testid="erasure-status">
            {r.status}
          </span>
          {!ended(r) && <span class="muted"> (at {r.step}; read again every second)</span>}
        </dd>
        <dt>Person</dt>
        <dd>{r.userId}</dd>
        <dt>Requested by</dt>
        <dd>{r.self ? `${r.requestedBy} (the person themself)` : r.requestedBy}</dd>
        <dt>Requested</dt>
        <dd>
          <When iso={r.requestedAt} />
        </dd>
        <dt>Started</dt>
        <dd>
          <When iso={r.startedAt} />
        </dd>
        <dt>Completed</dt>
        <dd data-testid="erasure-completed">
          <When iso={r.completedAt} />
        </dd>
        <dt>Passes</dt>
        <dd>{r.passes}</dd>
        {r.error && (
          <>
            <dt>Error</dt>
            <dd class="problem">{r.error}</dd>
          </>
        )}
      </dl>
      <Table
        data-testid="erasure-counts"
        caption="What the erasure removed or rewrote, per family and store"
        head={['Family', ...STORES.map((s) => STORE_NAMES[s])]}
      >
        {(Object.keys(r.counts) as Family[]).map((family) => (
          <tr data-family={family}>
            <th scope="row">{family}</th>
            {STORES.map((store) => {
              const kinds = Object.entries(r.counts[family][store]);
              return (
                <td data-store={store}>
                  {kinds.length === 0 ? (
                    <span class="muted">nothing</span>
                  ) : (
                    <ul class="plain">
                      {kinds.map(([kind, n]) => (
                        <li>
                          {kind}: <span class="num">{n}</span>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              );
            })}
          </tr>
        ))}
      </Table>
    </>
  );
}

const STORE_NAMES: Readonly<Record<(typeof STORES)[number], string>> = {
  postgres: 'PostgreSQL',
  redis: 'Redis',
  kafka: 'Transport (Kafka)',
};
