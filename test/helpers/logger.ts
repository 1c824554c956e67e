import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@memstream/logging';

/** A logger whose lines are kept in memory, so tests can assert on operator-facing log lines. */
export function captureLogger(service = 'test'): { log: Logger; lines: () => Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger({ service, level: 'debug', destination: sink }), lines: () => lines };
}
