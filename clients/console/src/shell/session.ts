import { MemstreamClient, MemstreamError } from '@memstream/client';

/** How the caller signed in: the API decides what each may see; the console only passes it on. */
export type Credentials =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'local' };

export interface Session {
  readonly credentials: Credentials;
  readonly client: MemstreamClient;
  /** Who the console shows as signed in: a token's subject (as the token says; the server checks it), an agent, or the local user. */
  readonly label: string;
  /** The admin roles the server says the caller holds: which admin views to offer (the server still checks each call). */
  readonly roles: readonly AdminRole[];
}

export type AdminRole = 'admin' | 'auditor';

// sessionStorage: a reload keeps the sign-in, closing the tab forgets it, other tabs never see it.
const STORAGE_KEY = 'memstream.console.credentials';

export function clientFor(credentials: Credentials): MemstreamClient {
  const baseUrl = window.location.origin;
  const retry = { maxAttempts: 3 };
  if (credentials.kind === 'token') return new MemstreamClient({ baseUrl, token: credentials.token, retry });
  if (credentials.kind === 'key') return new MemstreamClient({ baseUrl, apiKey: credentials.key, retry });
  return new MemstreamClient({ baseUrl, retry });
}

/** A token's `sub`, read without verifying it: only for the label, never for a decision. */
function subjectOf(token: string): string | undefined {
  try {
    const payload = token.split('.')[1];
    if (!payload) return undefined;
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: unknown };
    return typeof json.sub === 'string' ? json.sub : undefined;
  } catch {
    return undefined;
  }
}

function labelOf(credentials: Credentials): string {
  if (credentials.kind === 'local') return 'local user (authentication off)';
  if (credentials.kind === 'key') return 'agent (API key)';
  return subjectOf(credentials.token) ?? 'person (token)';
}

/**
 * Signs in by making one read with the credentials: the server's answer, not the console, says
 * whether they are good. Resolves with the session, or with the reason they were refused.
 */
export async function signIn(credentials: Credentials): Promise<Session | { refused: string }> {
  const client = clientFor(credentials);
  try {
    await client.memoryService.conversations.list({ limit: 1 });
  } catch (err) {
    if (err instanceof MemstreamError && err.status === 401)
      return {
        refused:
          credentials.kind === 'local'
            ? 'This server asks for credentials: sign in with a token or an agent key.'
            : 'The server refused these credentials.',
      };
    throw err;
  }
  const { roles } = await client.admin.roles();
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
  return { credentials, client, label: labelOf(credentials), roles };
}

export function storedCredentials(): Credentials | undefined {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Credentials) : undefined;
  } catch {
    return undefined;
  }
}

export function forget(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
