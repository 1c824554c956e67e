import type { Metrics } from '@memstream/metrics';

/** One sample of the Prometheus text format: `name{label="value",...} 12.5`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the text exposition format (comments skipped), as a scraper would read `/metrics`. */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Samples of one series whose labels include every label given. */
export function series(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The sum of the matching samples (0 when none match). */
export function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return series(samples, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** GET `<base>/metrics`, parsed; fails on a non-200 or a content type that is not the text format. */
export async function scrape(base: string): Promise<Sample[]> {
  const res = await fetch(`${base}/metrics`);
  if (res.status !== 200) throw new Error(`${base}/metrics answered ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`${base}/metrics has content type ${type}`);
  return parsePrometheus(await res.text());
}

/** The samples of an in-process registry, the same way. */
export async function samplesOf(metrics: Metrics): Promise<Sample[]> {
  return parsePrometheus((await metrics.render()).body);
}
