import { useState } from 'preact/hooks';
import type { MemstreamClient } from '@memstream/client';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { NextPage } from '../shell/next-page.js';
import { Table } from '../shell/table.js';

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
              <Table
                data-testid="audit-log"
                caption="Admin and auditor calls of the last day, oldest first"
                head={['When', 'Who', 'Role', 'Action', 'Target', 'Justification', { num: 'Answer' }, 'Counts']}
              >
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
              </Table>
              <NextPage cursor={page.nextCursor} label="Later entries" onNext={setAfter} />
            </>
          )
        }
      </Show>
    </>
  );
}
