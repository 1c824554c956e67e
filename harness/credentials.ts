import { SignJWT } from 'jose';

/**
 * Credentials the test clients send to a server, by origin: a contract written without them runs
 * unchanged against a server with authentication once its test has said who is calling.
 */
const byOrigin = new Map<string, Record<string, string>>();

export function useCredentials(base: string, headers: Record<string, string>): void {
  byOrigin.set(new URL(base).origin, headers);
}

/** The headers registered for the origin of `url` (none when its server needs none). */
export function credentialsFor(url: string): Record<string, string> {
  return byOrigin.get(new URL(url).origin) ?? {};
}

/** A development secret for servers under test (HS256 wants at least 32 characters). */
export const TEST_JWT_SECRET = 'memstream-test-secret-0123456789abcdef';

/** A user token signed with `secret`; `expiresInS` may be negative for an expired one. */
export async function userToken(
  sub: string,
  options: {
    secret?: string;
    expiresInS?: number;
    issuer?: string;
    audience?: string;
    /** More claims: `roles`, Keycloak's `realm_access`. */
    claims?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ ...options.claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt(now - 60)
    .setExpirationTime(now + (options.expiresInS ?? 3600));
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET));
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
