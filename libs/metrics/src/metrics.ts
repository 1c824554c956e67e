import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

export interface MetricsOptions {
  /** prom-client's process and Node.js series (CPU, memory, event loop lag, GC). */
  readonly processMetrics?: boolean;
}

type Kind = typeof Counter | typeof Gauge | typeof Histogram;

/**
 * The metrics of one process: one prom-client registry that every component registers on. Each
 * component asks for its instruments by name, and asking twice returns the first one, so services
 * composed into one process (the all-in-one) share series instead of failing on a duplicate name.
 * Instances are independent: tests that start several embedded memstreams in one process each
 * get their own registry, and nothing lives in module state.
 *
 * A service gets the process's instance from `runProcess` (`ctx.metrics`) and passes it down;
 * a component defines its instruments once, next to the code that records them:
 * `metrics.histogram({ name: 'memstream_<what>_seconds', help, labelNames, buckets: SLOW_SECONDS })`.
 */
export class Metrics {
  readonly registry = new Registry();

  constructor(options: MetricsOptions = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return this.getOrCreate(Counter, config, () => new Counter({ ...config, registers: [this.registry] }));
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return this.getOrCreate(Gauge, config, () => new Gauge({ ...config, registers: [this.registry] }));
  }

  histogram<L extends string>(
    config: Omit<HistogramConfiguration<L>, 'registers' | 'buckets'> & { buckets?: readonly number[] },
  ): Histogram<L> {
    const { buckets, ...rest } = config;
    return this.getOrCreate(
      Histogram,
      config,
      () => new Histogram({ ...rest, ...(buckets ? { buckets: [...buckets] } : {}), registers: [this.registry] }),
    );
  }

  /** The Prometheus text exposition of every series, with its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private getOrCreate<M>(kind: Kind, config: { name: string; labelNames?: readonly string[] }, create: () => M): M {
    const existing = this.registry.getSingleMetric(config.name);
    if (!existing) return create();
    // Two components meaning different things by one name would corrupt both series: fail loudly.
    const labels = (existing as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
    if (!(existing instanceof kind) || !sameLabels(labels, config.labelNames ?? [])) {
      throw new Error(
        `metric ${config.name} is already registered as a different ${existing.constructor.name} (labels ${labels.join(', ')})`,
      );
    }
    return existing as M;
  }
}

function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().every((label, i) => label === [...b].sort()[i]);
}
