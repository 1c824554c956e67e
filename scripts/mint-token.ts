/**
 * A user token for development: `npm run --silent token -- --sub alice [--ttl 3600] [--issuer X]
 * [--audience Y]` prints an HS256 JWT (sub, iat, exp) signed with AUTH_JWT_SECRET, the secret the
 * server verifies with, and nothing else on stdout, so `TOKEN=$(npm run --silent token -- --sub alice)`
 * works (--silent keeps npm's own banner off stdout). The issuer and audience default to
 * AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE, so a token minted beside the server's settings passes them.
 * `--roles admin,auditor` puts a `roles` claim in it (the admin API's roles, AUTH_ADMIN_ROLE and
 * AUTH_AUDITOR_ROLE by name).
 * Every problem goes to stderr with exit code 1.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { SignJWT } from 'jose';
import { authSettings, ConfigError, loadConfig } from '@memstream/config';

const USAGE =
  'usage: npm run --silent token -- --sub <user id> [--ttl <seconds, default 3600>] [--issuer <iss>] [--audience <aud>] [--roles admin,auditor]';

/** The same checks the server applies to these variables (a secret of at least 32 characters). */
const TokenEnv = z.object({
  AUTH_JWT_SECRET: authSettings.AUTH_JWT_SECRET,
  AUTH_JWT_ISSUER: authSettings.AUTH_JWT_ISSUER,
  AUTH_JWT_AUDIENCE: authSettings.AUTH_JWT_AUDIENCE,
});

class UsageError extends Error {}

function optionsOf(argv: string[]) {
  try {
    const options = {
      sub: { type: 'string' },
      ttl: { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      roles: { type: 'string' },
    } as const;
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
}

function requestOf(argv: string[], environment: Record<string, string | undefined>) {
  const values = optionsOf(argv);
  if (!values.sub?.trim()) throw new UsageError(`--sub is required: the user the token names\n${USAGE}`);
  const ttl = values.ttl ?? '3600';
  if (!/^[1-9]\d*$/.test(ttl))
    throw new UsageError(`--ttl must be a whole number of seconds above 0, not "${ttl}"\n${USAGE}`);
  const config = loadConfig(TokenEnv, environment);
  if (config.AUTH_JWT_SECRET === undefined) {
    throw new UsageError(
      'AUTH_JWT_SECRET is not set: export the secret the server verifies tokens with (at least 32 characters)',
    );
  }
  return {
    secret: config.AUTH_JWT_SECRET,
    sub: values.sub.trim(),
    ttlSeconds: Number(ttl),
    issuer: values.issuer ?? config.AUTH_JWT_ISSUER,
    audience: values.audience ?? config.AUTH_JWT_AUDIENCE,
    roles: (values.roles ?? '')
      .split(',')
      .map((role) => role.trim())
      .filter((role) => role !== ''),
  };
}

async function mint(request: ReturnType<typeof requestOf>): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(request.roles.length > 0 ? { roles: request.roles } : {})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(request.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + request.ttlSeconds);
  if (request.issuer) jwt = jwt.setIssuer(request.issuer);
  if (request.audience) jwt = jwt.setAudience(request.audience);
  return jwt.sign(new TextEncoder().encode(request.secret));
}

try {
  process.stdout.write(`${await mint(requestOf(process.argv.slice(2), process.env))}\n`);
} catch (err) {
  // A usage or configuration problem is told plainly; anything else keeps its stack
  console.error(err instanceof UsageError || err instanceof ConfigError ? `mint-token: ${err.message}` : err);
  process.exitCode = 1;
}
