import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTHeaderParameters,
  type FlattenedJWSInput,
  type CryptoKey,
} from 'jose';
import { AppError } from '@memstream/errors';
import { tokenRolesOf } from './roles.js';

export interface JwtSettings {
  /** HS256 shared secret. */
  readonly secret?: string | undefined;
  /** Where the identity provider publishes its RS256/ES256 public keys. */
  readonly jwksUrl?: string | undefined;
  readonly issuer?: string | undefined;
  readonly audience?: string | undefined;
}

/** What a verified token says of its holder: who (`sub`) and the role names it carries. */
export interface VerifiedToken {
  readonly subject: string;
  readonly roles: readonly string[];
}

/** Verifies a bearer token and returns what it says, or throws UNAUTHENTICATED. */
export type JwtVerifier = (token: string) => Promise<VerifiedToken>;

const ASYMMETRIC = ['RS256', 'ES256'] as const;
/** Clocks of the token's issuer and ours differ a little; more than this and the token is refused. */
const CLOCK_TOLERANCE_S = 5;
/**
 * The furthest ahead a token may expire. A token valid for centuries (exp 1e20) is a credential
 * nobody can take back short of rotating the secret; identity providers issue hours, a day or two.
 */
const MAX_LIFETIME_S = 366 * 24 * 3600;
/** The longest user id a write can carry (the event envelope's actor id). */
const MAX_SUBJECT_CHARS = 255;

/**
 * The user-token check: signature (HS256 with the secret, or RS256/ES256 with a key from the
 * JWKS, which jose caches for 10 minutes and fetches again at once for an unknown key id, at most
 * every 30 s), then `exp` (required), `nbf`, and the issuer and audience when configured. Any
 * failure is the client's (401); a JWKS endpoint that does not answer is ours (503).
 */
export function createJwtVerifier(settings: JwtSettings): JwtVerifier | undefined {
  const secret = settings.secret ? new TextEncoder().encode(settings.secret) : undefined;
  const jwks = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: 5_000 }) : undefined;
  if (!secret && !jwks) return undefined;
  const algorithms = [...(secret ? ['HS256'] : []), ...(jwks ? ASYMMETRIC : [])];
  const keyFor = async (header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey | Uint8Array> => {
    if (header.alg === 'HS256' && secret) return secret;
    if (jwks) return jwks(header, token).catch(keySetFailure);
    throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  };
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keyFor, {
        algorithms,
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      });
      refuseOddTimes(payload.exp, payload.iat);
      if (typeof payload.sub !== 'string' || payload.sub.length === 0)
        throw new AppError('UNAUTHENTICATED', 'The token names no user (claim "sub")');
      // Every write carries the caller's id (at most 255 characters, as every id): a longer one could not be applied.
      if (payload.sub.length > MAX_SUBJECT_CHARS)
        throw new AppError(
          'UNAUTHENTICATED',
          `The token's user (claim "sub") is longer than ${MAX_SUBJECT_CHARS} characters`,
        );
      return { subject: payload.sub, roles: tokenRolesOf(payload) };
    } catch (err) {
      throw toAuthError(err);
    }
  };
}

/**
 * jose checks that `exp` has not passed and `iat` is a number, not that either is plausible: a
 * token issued in the future was signed on a wrong clock or made to outlive its rotation.
 */
function refuseOddTimes(exp: number | undefined, iat: number | undefined): void {
  const now = Date.now() / 1000;
  if (exp !== undefined && exp > now + MAX_LIFETIME_S)
    throw new AppError('UNAUTHENTICATED', 'The token expires too far ahead (claim "exp" more than a year away)');
  if (iat !== undefined && iat > now + CLOCK_TOLERANCE_S)
    throw new AppError('UNAUTHENTICATED', 'The token was issued in the future (claim "iat")');
}

function toAuthError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof errors.JWTExpired) return new AppError('UNAUTHENTICATED', 'The token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    const reason =
      err.claim === 'nbf' ? 'The token is not valid yet' : `The token's "${err.claim}" claim is not accepted`;
    return new AppError('UNAUTHENTICATED', reason);
  }
  // The identity provider's key set could not be fetched: nothing the client can fix.
  if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError)) return identityProviderDown(err);
  return new AppError('UNAUTHENTICATED', 'The token does not verify');
}

/**
 * A token naming no published key is the client's (401); any other failure to get its key is the
 * identity provider's (503). jose reports a non-200 answer or a body that is no key set as a
 * JOSEError like any bad token's, so the two are told apart here, where the key is fetched.
 */
function keySetFailure(err: unknown): never {
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
  throw identityProviderDown(err);
}

function identityProviderDown(cause: unknown): AppError {
  return new AppError('DEPENDENCY_UNAVAILABLE', 'The identity provider could not be reached, please retry later', {
    cause,
  });
}
