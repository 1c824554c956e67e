import type { Session } from '../shell/session.js';
import { linkProps, seg, type Location } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Show } from '../shell/ui.js';
import { MemoryList } from '../memories/memory-list.js';
import { SummaryChain } from '../memories/summary-chain.js';
import { ForksAndMembers } from './fork-tree.js';
import { loadMessages, MESSAGE_WINDOW } from './load-messages.js';
import { useLiveUpdates, type LiveState } from './live-updates.js';
import { MessageTable, type Highlight } from './message-table.js';

const TABS = [
  { tab: 'messages', path: '', name: 'Messages' },
  { tab: 'memories', path: '/memories', name: 'Memories' },
  { tab: 'summaries', path: '/summaries', name: 'Summaries' },
  { tab: 'forks', path: '/forks', name: 'Forks and members' },
] as const;
export type Tab = (typeof TABS)[number]['tab'];

const LIVE_TEXT: Readonly<Record<LiveState, string>> = {
  connecting: 'Connecting to live updates…',
  live: 'Live: new messages appear as they arrive',
  reconnecting: 'Live updates interrupted, reconnecting…',
  closed: 'Live updates ended: this conversation is no longer readable',
};

/** One conversation: its messages (live), memories, summaries, and fork tree with members. */
export function ConversationPage({
  session,
  id,
  tab,
  location,
}: {
  session: Session;
  id: string;
  tab: Tab;
  location: Location;
}) {
  const base = `/conversations/${seg(id)}`;
  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a {...linkProps('/conversations')}>Conversations</a> ›
      </p>
      <h1 id="page-title" tabIndex={-1}>
        {id}
      </h1>
      <nav aria-label="Conversation views" class="tabs">
        {TABS.map((t) => (
          <a {...linkProps(`${base}${t.path}`)} aria-current={t.tab === tab ? 'page' : undefined}>
            {t.name}
          </a>
        ))}
      </nav>
      {tab === 'messages' && <MessagesTab session={session} id={id} location={location} />}
      {tab === 'memories' && (
        <MemoryList
          session={session}
          id={id}
          message={location.query.get('message')}
          episode={location.query.get('episode')}
        />
      )}
      {tab === 'summaries' && <SummaryChain session={session} id={id} />}
      {tab === 'forks' && <ForksAndMembers session={session} id={id} />}
    </section>
  );
}

function MessagesTab({ session, id, location }: { session: Session; id: string; location: Location }) {
  const { loaded, reload } = useLoad((signal) => loadMessages(session.client, id, signal), [session, id]);
  const live = useLiveUpdates(session.client, id, reload);
  const focus = location.query.getAll('focus');
  const window = /^(\d+)-(\d+)$/.exec(location.query.get('window') ?? '');
  const highlight: Highlight = {
    ...(focus.length > 0 ? { ids: new Set(focus) } : {}),
    ...(window ? { window: [Number(window[1]), Number(window[2])] as const } : {}),
  };
  return (
    <>
      <p class={`live ${live}`} role="status" aria-live="polite" data-testid="live-state" data-state={live}>
        {LIVE_TEXT[live]}
      </p>
      <Show loaded={loaded}>
        {(messages) => (
          <>
            {messages.total > messages.rows.length && (
              <p class="muted">
                The latest {MESSAGE_WINDOW} of {messages.total} messages.
              </p>
            )}
            <MessageTable conversationId={id} rows={messages.rows} highlight={highlight} />
          </>
        )}
      </Show>
    </>
  );
}
