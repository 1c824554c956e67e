import { useState } from 'preact/hooks';
import type { MemstreamClient } from '@memstream/client';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The audit log of the last day, oldest first as the API pages it, a hundred entries at a time;
 * "Later entries" follows the API's cursor. Reading it is itself written to the log.
 */
export function AuditLog({ client, version }: { client: MemstreamClient; version: number }) {
  const [since] = useState(() => new Date(Date.now() - DAY_MS).toISOString());
  const [after, setAfter] = useState<string | undefined>();
  const [action, setAction] = useState('');
  const [draft, setDraft] = useState('');
  const { loaded } = useLoad(
    (signal) =>
      client.admin.auditLog(
        { since, limit: 100, ...(after ? { after: Number(after) } : {}), ...(action ? { action } : {}) },
        { signal },
      ),
    [client, version, after, action],
  );
  return (
    <>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setAfter(undefined);
          setAction(draft.trim());
        }}
      >
        <label>
          Action (e.g. erasePerson)
          <input type="text" name="action" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <Show loaded={loaded}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No admin or auditor call in the last day{after ? ' after these' : ''}.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table data-testid="audit-log">
                  <caption>Admin and auditor calls of the last day, oldest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Who</th>
                      <th scope="col">Role</th>
                      <th scope="col">Action</th>
                      <th scope="col">Target</th>
                      <th scope="col">Justification</th>
                      <th scope="col" class="num">
                        Answer
                      </th>
                      <th scope="col">Counts</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((e) => (
                      <tr data-audit-action={e.action}>
                        <td>
                          <When iso={e.occurredAt} />
                        </td>
                        <th scope="row">
                          {e.actorId} <span class="muted small">({e.actorKind})</span>
                        </th>
                        <td>{e.role ?? <span class="muted">none</span>}</td>
                        <td>{e.action}</td>
                        <td class="content">{e.target ?? ''}</td>
                        <td class="content">{e.justification ?? ''}</td>
                        <td class="num">{e.status}</td>
                        <td class="small">
                          {Object.entries(e.counts)
                            .map(([k, n]) => `${k}: ${n}`)
                            .join(', ')}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {page.nextCursor && (
                <button type="button" onClick={() => setAfter(page.nextCursor!)}>
                  Later entries
                </button>
              )}
            </>
          )
        }
      </Show>
    </>
  );
}
