import type { CallOptions, Http } from './http.js';
import { route } from './route.js';

/**
 * What every process serves beside the API families. Not in openapi.json (probes and scrapers
 * reach it without credentials), so it stays out of ROUTES, which the agreement test holds to
 * that document.
 */
const METRICS = route({ family: 'platform', method: 'GET', path: '/metrics' });

/** One sample of a Prometheus text exposition. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The platform's own endpoints: the metrics a console or a script reads to see the pipeline. */
export class Platform {
  constructor(private readonly http: Http) {}

  /** The process's `/metrics` (in the embedded mode every service's series), parsed. */
  async metrics(options?: CallOptions): Promise<MetricSample[]> {
    return parsePrometheusText(await this.http.json<string>(METRICS, {}, options));
  }
}

const SAMPLE = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"\s*,?/g;

/** Prometheus's text format (0.0.4): comments and type lines skipped, label values unescaped. */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line.trim());
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, name, raw] of (match[2] ?? '').matchAll(LABEL)) {
      labels[name!] = raw!.replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}
