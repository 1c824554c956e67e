import { useState } from 'preact/hooks';
import type { Session } from '../shell/session.js';
import { linkProps, navigate, queryOf, seg, type Location } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { NextPage } from '../shell/next-page.js';
import { Table } from '../shell/table.js';
import {
  FAMILY_NAMES,
  loadConversations,
  type ConversationFilter,
  type ConversationPages,
  type ConversationRow,
} from './load-conversations.js';

const FIELDS = ['family', 'group', 'person', 'from', 'to'] as const;

/**
 * Every conversation the caller may read, of every family, filtered by the server, with the
 * filters kept in the address; further pages on request.
 */
export function ConversationList({ session, location }: { session: Session; location: Location }) {
  const filter: ConversationFilter = Object.fromEntries(
    FIELDS.map((k) => [k, location.query.get(k) ?? undefined]).filter(([, v]) => v !== undefined),
  );
  const key = FIELDS.map((k) => filter[k] ?? '').join('\u0000');
  const { loaded, reload } = useLoad(
    (signal) => loadConversations(session.client, filter, undefined, signal),
    [session, key],
  );
  const set = (field: (typeof FIELDS)[number], value: string) =>
    navigate(`/conversations${queryOf({ ...filter, [field]: value })}`, true);
  const filtered = FIELDS.some((k) => filter[k]);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Conversations
      </h1>
      <form class="filters" aria-label="Filter conversations" onSubmit={(e) => e.preventDefault()}>
        <label>
          Family
          <select value={filter.family ?? ''} onChange={(e) => set('family', e.currentTarget.value)}>
            <option value="">Every family</option>
            {Object.entries(FAMILY_NAMES).map(([value, name]) => (
              <option value={value}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Group or session
          <input type="search" value={filter.group ?? ''} onInput={(e) => set('group', e.currentTarget.value)} />
        </label>
        <label>
          Person
          <input type="search" value={filter.person ?? ''} onInput={(e) => set('person', e.currentTarget.value)} />
        </label>
        <label>
          Active from
          <input type="date" value={filter.from ?? ''} onInput={(e) => set('from', e.currentTarget.value)} />
        </label>
        <label>
          Active until
          <input type="date" value={filter.to ?? ''} onInput={(e) => set('to', e.currentTarget.value)} />
        </label>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </form>
      <Show loaded={loaded}>
        {(first) =>
          first.rows.length === 0 ? (
            <Empty>{filtered ? 'No conversation you can read matches.' : 'No conversations you can read yet.'}</Empty>
          ) : (
            <Pages key={key} session={session} filter={filter} first={first} />
          )
        }
      </Show>
    </section>
  );
}

/** The first page and those asked for after it, with a button for the next while there is one. */
function Pages({ session, filter, first }: { session: Session; filter: ConversationFilter; first: ConversationPages }) {
  const [more, setMore] = useState<{ rows: ConversationRow[]; next: string | null; error?: unknown } | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = [...first.rows, ...(more?.rows ?? [])];
  const next = more ? more.next : first.nextCursor;
  const loadMore = async (cursor: string) => {
    setBusy(true);
    try {
      const page = await loadConversations(session.client, filter, cursor, new AbortController().signal);
      setMore({ rows: [...(more?.rows ?? []), ...page.rows], next: page.nextCursor });
    } catch (error) {
      setMore({ rows: more?.rows ?? [], next: cursor, error });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Table
        data-testid="conversations"
        caption={`${rows.length} ${next ? 'shown, more to come' : rows.length === 1 ? 'conversation' : 'conversations'}, most recently active first`}
        head={['Conversation', 'Family', 'Owner', 'Last activity', { num: 'Summaries' }]}
      >
        {rows.map((r) => (
          <tr key={r.id} data-conversation-id={r.id} data-family={r.family}>
            <th scope="row">
              <a {...linkProps(`/conversations/${seg(r.id)}`)}>{r.title ?? r.session?.sessionId ?? r.id}</a>
              {(r.title || r.session) && <div class="muted small">{r.id}</div>}
              {r.forkedFrom && <div class="muted small">fork of {r.forkedFrom}</div>}
            </th>
            <td>
              <span class={`badge ${r.family}`}>{FAMILY_NAMES[r.family]}</span>
            </td>
            <td>{r.owner ?? <span class="muted">—</span>}</td>
            <td>
              <When iso={r.lastActivity} />
            </td>
            <td class="num">
              {r.summaries > 0 ? (
                <a {...linkProps(`/conversations/${seg(r.id)}/summaries`)}>
                  {r.summaries}
                  <span class="visually-hidden"> Memory Agent summaries</span>
                </a>
              ) : (
                <span class="muted">—</span>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <NextPage cursor={next} label="Show more conversations" onNext={loadMore} busy={busy} error={more?.error} />
    </>
  );
}
