import { useEffect } from 'preact/hooks';
import { linkProps, queryOf, seg } from '../shell/router.js';
import { Empty, When } from '../shell/ui.js';
import { Table } from '../shell/table.js';
import type { MessageRow } from './load-messages.js';

export interface Highlight {
  /** Message ids to mark (a memory's sources). */
  readonly ids?: ReadonlySet<string>;
  /** A sequence window to mark (a summary's). */
  readonly window?: readonly [number, number];
}

const marked = (r: MessageRow, h: Highlight) =>
  (h.ids?.has(r.id) ?? false) || (h.window !== undefined && r.sequence >= h.window[0] && r.sequence <= h.window[1]);

/** A conversation's messages, the marked ones (a memory's or a summary's sources) shown and scrolled to. */
export function MessageTable({
  conversationId,
  rows,
  highlight,
}: {
  conversationId: string;
  rows: readonly MessageRow[];
  highlight: Highlight;
}) {
  const firstMarked = rows.find((r) => marked(r, highlight))?.id;
  useEffect(() => {
    if (firstMarked) document.getElementById(`message-${firstMarked}`)?.scrollIntoView({ block: 'center' });
  }, [firstMarked]);
  if (rows.length === 0) return <Empty>No messages you can read in this conversation.</Empty>;
  return (
    <Table
      class="messages"
      data-testid="messages"
      caption="Messages, oldest first"
      hideCaption
      head={[{ num: '#' }, 'Sender', 'Role', 'Channel', 'Time', 'Message', 'Episode', 'Memories']}
    >
      {rows.map((r) => (
        <tr
          key={r.id}
          id={`message-${r.id}`}
          class={marked(r, highlight) ? 'marked' : undefined}
          aria-current={marked(r, highlight) ? 'true' : undefined}
          data-message-id={r.id}
        >
          <td class="num">{r.sequence}</td>
          <td>{r.senderName && r.senderName !== r.sender ? `${r.senderName} (${r.sender})` : r.sender || '—'}</td>
          <td>{r.role ?? <span class="muted">—</span>}</td>
          <td>{r.channel ?? <span class="muted">—</span>}</td>
          <td>
            <When iso={r.time} />
          </td>
          <td class="content">{r.content}</td>
          <td>
            {r.episode ? (
              <a
                {...linkProps(`/conversations/${seg(conversationId)}/memories${queryOf({ episode: r.episode.key })}`)}
                data-testid="message-episode"
              >
                Episode {r.episode.number}
                <span class="visually-hidden"> holding message {r.sequence}</span>
              </a>
            ) : (
              <span class="muted">—</span>
            )}
          </td>
          <td>
            {r.memories.length > 0 ? (
              <a {...linkProps(`/conversations/${seg(conversationId)}/memories${queryOf({ message: r.id })}`)}>
                {r.memories.length} {r.memories.length === 1 ? 'memory' : 'memories'}
                <span class="visually-hidden"> made from message {r.sequence}</span>
              </a>
            ) : (
              <span class="muted">—</span>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}
