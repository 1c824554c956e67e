import type { MemstreamClient } from '@memstream/client';
import { linkProps, seg } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { Table } from '../shell/table.js';
import { removedIn, type Receipt } from './receipt.js';

/** The latest erasures, newest first (the API's list, memstream's addition for this view). */
export function ErasureList({ client, version }: { client: MemstreamClient; version: number }) {
  const { loaded } = useLoad((signal) => client.admin.erasures({ limit: 50 }, { signal }), [client, version]);
  return (
    <Show loaded={loaded}>
      {(list) =>
        list.data.length === 0 ? (
          <Empty>No erasure yet.</Empty>
        ) : (
          <Table
            data-testid="erasures"
            caption={
              list.data.length === 1 ? 'The one erasure' : `The latest ${list.data.length} erasures, newest first`
            }
            head={[
              'Person',
              'Status',
              'Requested by',
              'Requested',
              'Completed',
              { num: 'Removed or rewritten' },
              'Receipt',
            ]}
          >
            {list.data.map((r: Receipt) => (
              <tr data-erasure-id={r.id}>
                <th scope="row">{r.userId}</th>
                <td>
                  <span class={`badge ${r.status}`}>{r.status}</span>
                </td>
                <td>{r.self ? 'the person themself' : r.requestedBy}</td>
                <td>
                  <When iso={r.requestedAt} />
                </td>
                <td>
                  <When iso={r.completedAt} />
                </td>
                <td class="num">{removedIn(r)}</td>
                <td>
                  <a {...linkProps(`/admin/erasures/${seg(r.id)}`)}>
                    Receipt<span class="visually-hidden"> of the erasure of {r.userId}</span>
                  </a>
                </td>
              </tr>
            ))}
          </Table>
        )
      }
    </Show>
  );
}
