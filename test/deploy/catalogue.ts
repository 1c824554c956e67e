import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { authConfigured, authSettings, listenHostOf, loadConfig } from '@memstream/config';
import { allInOneEnv } from '@memstream/all-in-one';
import { converterEnv } from '@memstream/converter';
import { governanceEnv } from '@memstream/governance';
import { extractorEnv } from '@memstream/extractor';
import { indexerEnv } from '@memstream/indexer';
import { apiEnv } from '@memstream/api';
import { setupEnv } from '@memstream/setup';
import { summarizerEnv } from '@memstream/summarizer';
import { mainOf, processNames } from '../../scripts/processes.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type EnvSchema = z.ZodObject<Record<string, z.ZodType>>;

/**
 * The env schema of every deployable, by its process name (the image's first argument, see
 * scripts/processes.js). A new service adds its line here; the deploy tests then hold its compose and
 * Kubernetes definitions to it.
 */
export const SERVICE_ENVS: Record<string, EnvSchema> = {
  'ingest-gateway': apiEnv,
  converter: converterEnv,
  governance: governanceEnv,
  'read-api': apiEnv,
  summarizer: summarizerEnv,
  extractor: extractorEnv,
  indexer: indexerEnv,
  setup: setupEnv,
  'all-in-one': allInOneEnv,
};

/**
 * Processes that are not long-running processes of the distributed mode: the
 * embedded mode, one-shot commands, and the MCP server, which is a client of memstream that runs
 * beside an agent (over stdio, or HTTP with the agent's credentials), not a part of the platform.
 */
const NOT_LONG_RUNNING = new Set(['all-in-one', 'cli', 'setup', 'mcp']);

/** Every process the distributed mode runs: each one scripts/processes.js knows, but the above. */
export function longRunningServices(): string[] {
  return processNames().filter((name) => !NOT_LONG_RUNNING.has(name));
}

/** The settings a schema cannot do without: those it rejects when they are missing. */
export function requiredKeys(schema: EnvSchema): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([key]) => key);
}

/**
 * What a service's composition root opens decides what it needs when it runs on its own: without
 * these a container silently falls back to the embedded mode's in-process bus, a database of its own
 * inside the container, or in-process fan-out, and nothing would say so.
 */
export function distributedNeeds(service: string): string[] {
  const main = readFileSync(join(ROOT, mainOf(service)), 'utf8');
  const needs: string[] = [];
  if (/\bcreateBus\(/.test(main)) needs.push('KAFKA_BROKERS');
  if (/\bopenStore\(/.test(main)) needs.push('DATABASE_URL');
  if (/\bcreate(Fanout|RequestLedger)\(/.test(main)) needs.push('REDIS_URL');
  return needs;
}

/**
 * Problems with the environment a deployment gives one service: a variable the service does not
 * read (a typo, or a setting meant for another service), a required or distributed-mode one that is
 * missing, or values its schema refuses. Empty when the service would start with it.
 */
export function envProblems(service: string, env: Record<string, string>): string[] {
  const schema = SERVICE_ENVS[service];
  if (schema === undefined)
    return [`no env schema for service ${service}: add it to SERVICE_ENVS in test/deploy/catalogue.ts`];
  const known = new Set(Object.keys(schema.shape));
  const problems = Object.keys(env)
    .filter((key) => !known.has(key))
    .map((key) => `${key} is set but ${service} does not read it`);
  for (const key of new Set([
    ...requiredKeys(schema),
    ...(service === 'all-in-one' ? [] : distributedNeeds(service)),
  ])) {
    if (env[key] === undefined || env[key].trim() === '') problems.push(`${key} is needed by ${service} but not set`);
  }
  try {
    loadConfig(schema, env);
  } catch (err) {
    problems.push((err as Error).message);
  }
  return problems;
}

/** The configuration a service would run with, given the environment a deployment sets. */
export function effectiveConfig(service: string, env: Record<string, string>): Record<string, unknown> {
  const schema = SERVICE_ENVS[service];
  if (schema === undefined) throw new Error(`no env schema for service ${service}`);
  return loadConfig(schema, env) as Record<string, unknown>;
}

/** The settings that say who may call an API process. */
export const AUTH_SETTINGS: readonly string[] = Object.keys(authSettings);

/**
 * The credentials every deployment gives its API processes, by reference only (a Secret, the shell
 * running compose): the HS256 secret of users' tokens and the agents' keys.
 */
export const API_CREDENTIALS = ['AUTH_JWT_SECRET', 'AUTH_API_KEYS'] as const;

/** A process that serves an API and so reads who may call it; the others serve only probes and metrics. */
export function isApiProcess(service: string): boolean {
  const schema = SERVICE_ENVS[service];
  return schema !== undefined && AUTH_SETTINGS.every((key) => key in schema.shape);
}

/** Where an API process would listen and whether its callers must authenticate, given its environment. */
export function exposureOf(service: string, env: Record<string, string>): { host: string; authenticated: boolean } {
  const config = effectiveConfig(service, env) as Parameters<typeof listenHostOf>[0];
  return { host: listenHostOf(config), authenticated: authConfigured(config) };
}

/** Addresses that only the process's own machine (or pod) can reach. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);

/** Paths a process answers without credentials (the open list of libs/http/src/authentication.ts): all a probe may ask. */
export const OPEN_PATH = /^\/(health|metrics|docs)(\/|$)/;
