import type { ConsumerGroupLag, MetricSample } from '@memstream/client';

export interface GroupFigures {
  readonly group: string;
  readonly topics: readonly string[];
  /**
   * Records behind, summed over partitions and topics: from the bus's committed offsets when the
   * API could read them, else as each consumer saw at its last fetch (its own /metrics).
   */
  readonly lag: number;
  readonly maxPartitionLag: number;
  readonly ok: number;
  readonly retried: number;
  readonly deadLettered: number;
  /** Records handled per second since the previous reading; null on the first. */
  readonly perSecond: number | null;
}

export interface Figures {
  readonly at: number;
  readonly groups: readonly GroupFigures[];
  readonly deadLetters: readonly { topic: string; group: string; reason: string; count: number }[];
  readonly modelCalls: readonly {
    model: string;
    operation: string;
    outcome: string;
    calls: number;
    meanSeconds: number;
  }[];
  readonly tokens: readonly { model: string; operation: string; prompt: number; completion: number }[];
  readonly modelErrors: readonly { model: string; operation: string; reason: string; count: number }[];
  /** The read API's streaming replicas (DATABASE_REPLICA_URLS), empty without them. */
  readonly replicas: readonly ReplicaFigures[];
}

export interface ReplicaFigures {
  /** host:port */
  readonly replica: string;
  readonly up: boolean;
  /** WAL bytes behind the primary, and seconds since its last replayed transaction while behind; null when down. */
  readonly lagBytes: number | null;
  readonly lagSeconds: number | null;
  /** Reads it answered, and reads handed to the primary because it lagged or failed. */
  readonly reads: number;
  readonly toPrimary: number;
}

const label = (s: MetricSample, name: string) => s.labels[name] ?? '';

/** The pipeline's state from one reading of /metrics; `previous` gives the rates. */
export function figuresOf(samples: readonly MetricSample[], at: number, previous?: Figures): Figures {
  const groups = new Map<
    string,
    { topics: Set<string>; lag: number; max: number; ok: number; retried: number; dead: number }
  >();
  const groupOf = (name: string) => {
    let g = groups.get(name);
    if (!g) groups.set(name, (g = { topics: new Set(), lag: 0, max: 0, ok: 0, retried: 0, dead: 0 }));
    return g;
  };
  const deadLetters: Figures['deadLetters'][number][] = [];
  const calls = new Map<string, { model: string; operation: string; outcome: string; calls: number; sum: number }>();
  const tokens = new Map<string, { model: string; operation: string; prompt: number; completion: number }>();
  const modelErrors: Figures['modelErrors'][number][] = [];
  const replicas = new Map<
    string,
    { up: boolean; lagBytes: number | null; lagSeconds: number | null; reads: number; toPrimary: number }
  >();
  const replicaOf = (s: MetricSample) => {
    const name = label(s, 'replica');
    let r = replicas.get(name);
    if (!r) replicas.set(name, (r = { up: false, lagBytes: null, lagSeconds: null, reads: 0, toPrimary: 0 }));
    return r;
  };
  for (const s of samples) {
    switch (s.name) {
      case 'memstream_replica_up':
        replicaOf(s).up = s.value === 1;
        break;
      case 'memstream_replica_lag_bytes':
        replicaOf(s).lagBytes = s.value;
        break;
      case 'memstream_replica_lag_seconds':
        replicaOf(s).lagSeconds = s.value;
        break;
      case 'memstream_replica_reads_total':
        // Reads with no replica to try (all down) carry an empty label: they have no row.
        if (label(s, 'replica') === '') break;
        if (label(s, 'outcome') === 'replica') replicaOf(s).reads += s.value;
        else replicaOf(s).toPrimary += s.value;
        break;
      case 'memstream_consumer_lag_records': {
        const g = groupOf(label(s, 'group'));
        g.topics.add(label(s, 'topic'));
        g.lag += s.value;
        g.max = Math.max(g.max, s.value);
        break;
      }
      case 'memstream_consumer_records_total': {
        const g = groupOf(label(s, 'group'));
        g.topics.add(label(s, 'topic'));
        const outcome = label(s, 'outcome');
        if (outcome === 'ok') g.ok += s.value;
        else if (outcome === 'retried') g.retried += s.value;
        else if (outcome === 'dead_lettered') g.dead += s.value;
        break;
      }
      case 'memstream_consumer_dead_letters_total':
        deadLetters.push({
          topic: label(s, 'topic'),
          group: label(s, 'group'),
          reason: label(s, 'reason'),
          count: s.value,
        });
        break;
      case 'memstream_model_call_duration_seconds_count':
      case 'memstream_model_call_duration_seconds_sum': {
        const key = `${label(s, 'model')}\u0000${label(s, 'operation')}\u0000${label(s, 'outcome')}`;
        const c = calls.get(key) ?? {
          model: label(s, 'model'),
          operation: label(s, 'operation'),
          outcome: label(s, 'outcome'),
          calls: 0,
          sum: 0,
        };
        if (s.name.endsWith('_count')) c.calls = s.value;
        else c.sum = s.value;
        calls.set(key, c);
        break;
      }
      case 'memstream_model_tokens_total': {
        const key = `${label(s, 'model')}\u0000${label(s, 'operation')}`;
        const t = tokens.get(key) ?? {
          model: label(s, 'model'),
          operation: label(s, 'operation'),
          prompt: 0,
          completion: 0,
        };
        if (label(s, 'kind') === 'prompt') t.prompt += s.value;
        else if (label(s, 'kind') === 'completion') t.completion += s.value;
        tokens.set(key, t);
        break;
      }
      case 'memstream_model_call_errors_total':
        modelErrors.push({
          model: label(s, 'model'),
          operation: label(s, 'operation'),
          reason: label(s, 'reason'),
          count: s.value,
        });
        break;
    }
  }
  const before = new Map(previous?.groups.map((g) => [g.group, g]));
  const seconds = previous ? (at - previous.at) / 1000 : 0;
  return {
    at,
    groups: [...groups.entries()]
      .map(([group, g]) => {
        const prior = before.get(group);
        return {
          group,
          topics: [...g.topics].sort(),
          lag: g.lag,
          maxPartitionLag: g.max,
          ok: g.ok,
          retried: g.retried,
          deadLettered: g.dead,
          perSecond: prior && seconds > 0 ? Math.max(0, (g.ok - prior.ok) / seconds) : null,
        };
      })
      .sort((a, b) => a.group.localeCompare(b.group)),
    deadLetters: deadLetters.filter((d) => d.count > 0),
    modelCalls: [...calls.values()].map((c) => ({ ...c, meanSeconds: c.calls > 0 ? c.sum / c.calls : 0 })),
    tokens: [...tokens.values()],
    modelErrors: modelErrors.filter((e) => e.count > 0),
    replicas: [...replicas.entries()]
      .map(([replica, r]) => ({ replica, ...r }))
      .sort((a, b) => a.replica.localeCompare(b.replica)),
  };
}

/**
 * The figures with each group's lag taken from the bus (GET /v1/console/pipeline) rather than
 * from the consumers' gauges: in the distributed mode the consumers' series are not in the API's
 * /metrics, and a stopped consumer's gauge stops with it, while the bus's offsets keep counting.
 * Groups that only the bus knows (their consumer runs elsewhere) get a row of their own.
 */
export function withBusLag(figures: Figures, lag: readonly ConsumerGroupLag[]): Figures {
  const fromBus = new Map<string, { topics: Set<string>; lag: number; max: number }>();
  for (const entry of lag) {
    const g = fromBus.get(entry.group) ?? { topics: new Set<string>(), lag: 0, max: 0 };
    g.topics.add(entry.topic);
    g.lag += entry.lag;
    for (const p of entry.partitions) g.max = Math.max(g.max, p.lag);
    fromBus.set(entry.group, g);
  }
  const groups: GroupFigures[] = figures.groups.map((g) => {
    const bus = fromBus.get(g.group);
    if (!bus) return g;
    return { ...g, topics: [...new Set([...g.topics, ...bus.topics])].sort(), lag: bus.lag, maxPartitionLag: bus.max };
  });
  const known = new Set(groups.map((g) => g.group));
  for (const [group, bus] of fromBus)
    if (!known.has(group))
      groups.push({
        group,
        topics: [...bus.topics].sort(),
        lag: bus.lag,
        maxPartitionLag: bus.max,
        ok: 0,
        retried: 0,
        deadLettered: 0,
        perSecond: null,
      });
  return { ...figures, groups: groups.sort((a, b) => a.group.localeCompare(b.group)) };
}
