import { createLogger, type Logger } from '@memstream/logging';

/**
 * The bus logs pino JSON; a person running the CLI reads plain lines, so warnings are rewritten
 * as `kafka warn: ...` on stderr. kafkajs's note that the idempotent producer limits its retries
 * is dropped: the bus chose that limit on purpose and the note says nothing about this import.
 */
export function busLogger(stderr: { write(text: string): unknown }): Logger {
  return createLogger({
    service: 'memstream-import',
    level: 'warn',
    destination: {
      write(line: string) {
        const entry = parseLine(line);
        if (!entry) return void stderr.write(line);
        if (typeof entry['msg'] === 'string' && entry['msg'].startsWith('Limiting retries for the idempotent producer'))
          return;
        const level = Number(entry['level']) >= 50 ? 'error' : 'warn';
        const where = typeof entry['namespace'] === 'string' ? ` [${entry['namespace']}]` : '';
        stderr.write(`kafka ${level}${where}: ${String(entry['msg'] ?? '')}\n`);
      },
    },
  });
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
