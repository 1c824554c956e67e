import type { z } from 'zod';
import { loadConfig } from '@memstream/config';
import { createLogger, type Logger, type LoggerOptions } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from './lifecycle.js';

export interface ProcessContext<C> {
  readonly config: C;
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
  /** The process's one registry: every component registers on it and `/metrics` serves it. */
  readonly metrics: Metrics;
}

/**
 * The shape of every `main.ts`: parse the environment once, make the logger and the lifecycle,
 * install signal handlers, make the metrics registry, then let `start` acquire resources (each
 * registering its teardown).
 * Readiness turns on only when start resolves; a failed start tears down what it got and exits 1.
 * `logDestination` is for a process whose stdout is a protocol (the MCP server over stdio).
 */
export async function runProcess<S extends z.ZodType<{ LOG_LEVEL: string; SHUTDOWN_TIMEOUT_MS: number }>>(
  service: string,
  schema: S,
  env: Record<string, string | undefined>,
  start: (ctx: ProcessContext<z.infer<S>>) => Promise<void>,
  options: { readonly logDestination?: LoggerOptions['destination'] } = {},
): Promise<void> {
  const config = loadConfig(schema, env);
  const log = createLogger({
    service,
    level: config.LOG_LEVEL as 'info',
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  lifecycle.handleSignals();
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled promise rejection'));
  const metrics = new Metrics({ processMetrics: true });
  try {
    await start({ config, log, lifecycle, metrics });
    lifecycle.markReady();
    log.info('ready');
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    await lifecycle.shutdown();
    process.exit(1);
  }
}
