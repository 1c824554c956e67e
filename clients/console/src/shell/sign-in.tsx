import { useState } from 'preact/hooks';
import { signIn, type Credentials, type Session } from './session.js';
import { describe } from './ui.js';

const KINDS: ReadonlyArray<readonly [Credentials['kind'], string]> = [
  ['token', 'A person (token)'],
  ['key', 'An agent (API key)'],
  ['local', 'The local user (authentication off)'],
];

/** Sign in with a person's token or an agent's key, or, on a server without authentication, as the local user. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string }) {
  const [kind, setKind] = useState<Credentials['kind']>('token');
  const [secret, setSecret] = useState('');
  const [problem, setProblem] = useState<string | undefined>(notice);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    const credentials: Credentials =
      kind === 'token' ? { kind, token: secret.trim() } : kind === 'key' ? { kind, key: secret.trim() } : { kind };
    try {
      const outcome = await signIn(credentials);
      if ('refused' in outcome) setProblem(outcome.refused);
      else onSignedIn(outcome);
    } catch (err) {
      setProblem(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1 id="page-title" tabIndex={-1}>
        Sign in to memstream
      </h1>
      <form onSubmit={submit} aria-describedby={problem ? 'sign-in-problem' : undefined}>
        <fieldset>
          <legend>Sign in as</legend>
          {KINDS.map(([value, name]) => (
            <label class="inline">
              <input type="radio" name="kind" value={value} checked={kind === value} onChange={() => setKind(value)} />{' '}
              {name}
            </label>
          ))}
        </fieldset>
        {kind !== 'local' && (
          <label>
            {kind === 'token' ? 'Token' : 'API key'}
            <input
              type="password"
              name="secret"
              autoComplete="off"
              required
              value={secret}
              onInput={(e) => setSecret(e.currentTarget.value)}
            />
          </label>
        )}
        {problem && (
          <p id="sign-in-problem" class="problem" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted small">
        The console shows only what the API answers to these credentials. They stay in this tab until it is closed.
      </p>
    </main>
  );
}
