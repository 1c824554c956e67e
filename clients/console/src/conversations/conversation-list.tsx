import type { Session } from '../shell/session.js';
import { linkProps, navigate, queryOf, seg, type Location } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import {
  FAMILY_NAMES,
  RECENT_WINDOW,
  filterConversations,
  loadConversations,
  type ConversationFilter,
} from './load-conversations.js';

const FIELDS = ['family', 'group', 'person', 'from', 'to'] as const;

/** Every conversation the caller may read, of every family, with filters kept in the address. */
export function ConversationList({ session, location }: { session: Session; location: Location }) {
  const { loaded, reload } = useLoad((signal) => loadConversations(session.client, signal), [session]);
  const filter: ConversationFilter = Object.fromEntries(
    FIELDS.map((k) => [k, location.query.get(k) ?? undefined]).filter(([, v]) => v !== undefined),
  );
  const set = (key: (typeof FIELDS)[number], value: string) =>
    navigate(`/conversations${queryOf({ ...filter, [key]: value })}`, true);
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
        {(rows) => {
          const shown = filterConversations(rows, filter);
          if (rows.length === 0) return <Empty>No conversations you can read yet.</Empty>;
          return (
            <div class="table-wrap">
              <table data-testid="conversations">
                <caption>
                  {shown.length} of {rows.length} conversations (from your latest {RECENT_WINDOW} messages and every
                  memory-service conversation and ARK session you can read)
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Conversation</th>
                    <th scope="col">Family</th>
                    <th scope="col">People</th>
                    <th scope="col">Last activity</th>
                    <th scope="col" class="num">
                      Recent messages
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((r) => (
                    <tr key={r.id}>
                      <th scope="row">
                        <a {...linkProps(`/conversations/${seg(r.id)}`)}>{r.title ?? r.id}</a>
                        {r.title && <div class="muted small">{r.id}</div>}
                      </th>
                      <td>
                        <span class={`badge ${r.family}`}>{FAMILY_NAMES[r.family]}</span>
                      </td>
                      <td>{r.people.join(', ') || <span class="muted">—</span>}</td>
                      <td>
                        <When iso={r.lastActivity} />
                      </td>
                      <td class="num">{r.recentMessages}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        }}
      </Show>
    </section>
  );
}
