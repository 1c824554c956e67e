import { pino, type Logger, type DestinationStream, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  service: string;
  level?: LevelWithSilent;
  /** Where lines go; tests pass a sink to assert on operator-facing lines. Defaults to stdout. */
  destination?: DestinationStream;
}

/**
 * One pino logger per process. Secrets that may ride along in objects we log (connection
 * strings, API keys, auth headers) are redacted by path so a careless `log.info({ config })`
 * does not leak them.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.service,
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'config.DATABASE_URL',
          'config.REDIS_URL',
          'config.OPENAI_API_KEY',
          'config.EMBEDDING_API_KEY',
          'config.AUTH_JWT_SECRET',
          'config.AUTH_API_KEYS',
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          '*.password',
          '*.apiKey',
        ],
        censor: '[redacted]',
      },
      serializers: { err: pino.stdSerializers.err },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
