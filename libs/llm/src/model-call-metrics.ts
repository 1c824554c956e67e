import { isAppError } from '@memstream/errors';
import { SLOW_SECONDS, type Metrics } from '@memstream/metrics';

/** Which model did what: `operation` is the caller's purpose (summarize, extract, embed). */
export interface ModelCall {
  readonly model: string;
  readonly operation: string;
}

/** Tokens as the server reports them; null when it does not (some local servers). */
export interface ModelUsage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
}

function modelCallMetricsOf(metrics: Metrics) {
  return {
    duration: metrics.histogram({
      name: 'memstream_model_call_duration_seconds',
      help: "One model call, the client's own retries included",
      labelNames: ['model', 'operation', 'outcome'],
      buckets: SLOW_SECONDS,
    }),
    tokens: metrics.counter({
      name: 'memstream_model_tokens_total',
      help: 'Tokens the model server reported, by kind (prompt, completion)',
      labelNames: ['model', 'operation', 'kind'],
    }),
    errors: metrics.counter({
      name: 'memstream_model_call_errors_total',
      help: 'Model calls that failed after the client gave up, by reason (http_<status>, timeout, connection, aborted, or an error code)',
      labelNames: ['model', 'operation', 'reason'],
    }),
  };
}

/**
 * Runs one model call and records it: its duration, the tokens `usageOf` reads from its result,
 * or its failure. Every model client of the platform (chat, extraction, embeddings) goes through
 * this, so cost and error dashboards cover them all under the same names.
 */
export async function measureModelCall<T>(
  metrics: Metrics,
  call: ModelCall,
  run: () => Promise<T>,
  usageOf: (result: T) => ModelUsage,
): Promise<T> {
  const m = modelCallMetricsOf(metrics);
  const labels = { model: call.model, operation: call.operation };
  const started = performance.now();
  let result: T;
  try {
    result = await run();
  } catch (err) {
    m.duration.observe({ ...labels, outcome: 'error' }, (performance.now() - started) / 1000);
    m.errors.inc({ ...labels, reason: failureReason(err) });
    throw err;
  }
  m.duration.observe({ ...labels, outcome: 'ok' }, (performance.now() - started) / 1000);
  const usage = usageOf(result);
  if (usage.promptTokens !== null) m.tokens.inc({ ...labels, kind: 'prompt' }, usage.promptTokens);
  if (usage.completionTokens !== null) m.tokens.inc({ ...labels, kind: 'completion' }, usage.completionTokens);
  return result;
}

/** A short, bounded label for why a call failed. */
function failureReason(err: unknown): string {
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number') return `http_${status}`;
  if (isAppError(err)) return err.code.toLowerCase();
  const name = err instanceof Error ? err.name : '';
  if (/timeout/i.test(name)) return 'timeout';
  if (/abort/i.test(name)) return 'aborted';
  if (/connection/i.test(name)) return 'connection';
  return 'error';
}
