import { useEffect, useState } from 'preact/hooks';
import { ConversationList } from '../conversations/conversation-list.js';
import { ConversationPage, type Tab } from '../conversations/conversation-page.js';
import { AdminPage } from '../admin/admin-page.js';
import { ErasureReceiptPage } from '../admin/erasure-receipt.js';
import { PipelinePage } from '../pipeline/pipeline-page.js';
import { SearchPage } from '../search/search-page.js';
import { linkProps, navigate, useLocation, type Location } from './router.js';
import { forget, signIn, storedCredentials, type Session } from './session.js';
import { SignIn } from './sign-in.js';
import { describe } from './ui.js';

const NAV = [
  { path: '/conversations', name: 'Conversations' },
  { path: '/search', name: 'Search' },
  { path: '/pipeline', name: 'Pipeline' },
] as const;
/** Offered only to a caller the server says holds an admin role. */
const ADMIN_NAV = { path: '/admin', name: 'Admin' } as const;

/**
 * The console: restores the tab's sign-in (or signs in as the local user when the server asks
 * for no credentials), then routes. After each navigation focus moves to the page's heading, so
 * a screen reader announces the new page.
 */
export function App() {
  const location = useLocation();
  const [session, setSession] = useState<Session | undefined>();
  const [starting, setStarting] = useState(true);
  const [notice, setNotice] = useState<string | undefined>();
  useEffect(() => {
    void signIn(storedCredentials() ?? { kind: 'local' })
      .then((outcome) => {
        if ('refused' in outcome) {
          if (storedCredentials()) setNotice('Your sign-in is no longer accepted. Sign in again.');
          forget();
        } else setSession(outcome);
      })
      .catch((err: unknown) => setNotice(describe(err)))
      .finally(() => setStarting(false));
  }, []);
  useEffect(() => {
    document.getElementById('page-title')?.focus();
  }, [location.path, session]);
  if (starting) return <p class="muted">Starting…</p>;
  if (!session) return <SignIn onSignedIn={setSession} {...(notice ? { notice } : {})} />;
  const signOut = () => {
    forget();
    setSession(undefined);
    navigate('/');
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">memstream</span>
        <nav aria-label="Console">
          {(session.roles.length > 0 ? [...NAV, ADMIN_NAV] : NAV).map((n) => (
            <a {...linkProps(n.path)} aria-current={location.path.startsWith(n.path) ? 'page' : undefined}>
              {n.name}
            </a>
          ))}
        </nav>
        <span class="who" data-testid="signed-in-as">
          {session.label}
        </span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page session={session} location={location} />
      </main>
    </>
  );
}

function Page({ session, location }: { session: Session; location: Location }) {
  const parts = location.path.split('/').filter(Boolean);
  if (parts[0] === 'conversations' && parts[1] !== undefined) {
    const id = decodeURIComponent(parts[1]);
    const tab = (parts[2] ?? 'messages') as Tab;
    return <ConversationPage session={session} id={id} tab={tab} location={location} />;
  }
  if (parts[0] === 'search') return <SearchPage session={session} location={location} />;
  if (parts[0] === 'pipeline') return <PipelinePage session={session} />;
  if (parts[0] === 'admin' && session.roles.length > 0) {
    if (parts[1] === 'erasures' && parts[2] !== undefined)
      return <ErasureReceiptPage session={session} id={decodeURIComponent(parts[2])} />;
    return <AdminPage session={session} />;
  }
  if (parts.length === 0 || parts[0] === 'conversations')
    return <ConversationList session={session} location={location} />;
  return (
    <section>
      <h1 id="page-title" tabIndex={-1}>
        Not found
      </h1>
      <p>
        Nothing here. <a {...linkProps('/conversations')}>See the conversations</a>.
      </p>
    </section>
  );
}
