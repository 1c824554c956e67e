import type { Admin } from 'kafkajs';
import type { TopicFinding, TopicSpec } from './topic-spec.js';

// kafkajs's enums, by value: Node's ESM view of the CommonJS package does not name them
const TOPIC_RESOURCE = 2; // ConfigResourceTypes.TOPIC
const TOPIC_OVERRIDE = 1; // ConfigSource.TOPIC_CONFIG

/** The catalogue's topic domains: a topic under the prefix in one of them, yet not in the catalogue, is likely a typo. */
const OUR_DOMAINS = ['ingest.', 'conversation.', 'memory.', 'governance.'];

/**
 * Holds topics that existed before setup to the catalogue: a producer that wrote first, on a
 * broker that creates topics on first use, got the broker's defaults (7-day segments, which an
 * erasure relies on being one day; maybe one partition). Each setting is fixed only in the safe
 * direction: segments made no longer, retention made no shorter (longer is an operator's choice,
 * and an erasure cuts consumed records anyway). A partition count below the plan is reported, not
 * raised: more partitions move keys to other partitions, which breaks a conversation's order while
 * records of it are still unread. Fewer replicas than planned are reported too (adding some is a
 * reassignment that copies whole logs, an operator's move); a topic of 3 or more replicas that
 * acknowledges a write held by fewer than 2 gets min.insync.replicas=2, the durable direction.
 * Topics under the prefix in our domains that the catalogue does not name are reported too:
 * nothing reads them.
 */
export async function reconcileTopics(
  admin: Admin,
  wanted: readonly (TopicSpec & { readonly partitionsPlanned: number })[],
  prefix: string,
  replicationPlanned = 1,
): Promise<TopicFinding[]> {
  const findings: TopicFinding[] = [];
  const names = new Set(wanted.map((t) => t.name));
  const existing = await admin.listTopics();
  for (const name of existing) {
    if (names.has(name) || !name.startsWith(prefix)) continue;
    const bare = name.slice(prefix.length);
    if (OUR_DOMAINS.some((d) => bare.startsWith(d)))
      findings.push({
        topic: name,
        setting: 'unknown topic',
        found: 'exists',
        wanted: 'a topic of the catalogue',
        fixed: false,
        why: 'no memstream service reads it: check the name a producer writes to',
      });
  }
  const present = wanted.filter((t) => existing.includes(t.name));
  if (present.length === 0) return findings;
  const metadata = await admin.fetchTopicMetadata({ topics: present.map((t) => t.name) });
  const partitionsOf = new Map(metadata.topics.map((t) => [t.name, t.partitions.length]));
  const replicasOf = new Map(
    metadata.topics.map((t) => [t.name, Math.min(...t.partitions.map((p) => p.replicas.length))]),
  );
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: present.map((t) => ({ type: TOPIC_RESOURCE, name: t.name })),
  });
  for (const resource of described.resources) {
    const spec = present.find((t) => t.name === resource.resourceName);
    if (!spec) continue;
    const value = (key: string) => resource.configEntries.find((e) => e.configName === key)?.configValue;
    const changes: Array<{ name: string; value: string }> = [];
    const retention = Number(value('retention.ms'));
    if (spec.retentionMs !== undefined && retention !== -1 && retention < spec.retentionMs) {
      changes.push({ name: 'retention.ms', value: String(spec.retentionMs) });
      findings.push(finding(spec.name, 'retention.ms', retention, spec.retentionMs, 'shorter than planned'));
    }
    const segment = Number(value('segment.ms'));
    if (spec.segmentMs !== undefined && segment > spec.segmentMs) {
      changes.push({ name: 'segment.ms', value: String(spec.segmentMs) });
      findings.push(
        finding(spec.name, 'segment.ms', segment, spec.segmentMs, 'an erased record would stay on disk longer'),
      );
    }
    const partitions = partitionsOf.get(spec.name) ?? 0;
    if (partitions < spec.partitionsPlanned)
      findings.push({
        topic: spec.name,
        setting: 'partitions',
        found: String(partitions),
        wanted: String(spec.partitionsPlanned),
        fixed: false,
        why: 'not raised: more partitions move keys and break order while records are unread; raise it with kafka-topics --alter once consumers have caught up',
      });
    const replicas = replicasOf.get(spec.name) ?? 0;
    if (replicas < replicationPlanned)
      findings.push({
        topic: spec.name,
        setting: 'replication factor',
        found: String(replicas),
        wanted: String(replicationPlanned),
        fixed: false,
        why: 'not raised: more replicas copy whole logs between brokers; add them with kafka-reassign-partitions',
      });
    const minInsync = Number(value('min.insync.replicas') ?? 1);
    if (replicas >= 3 && minInsync < 2) {
      changes.push({ name: 'min.insync.replicas', value: '2' });
      findings.push({
        topic: spec.name,
        setting: 'min.insync.replicas',
        found: String(minInsync),
        wanted: '2',
        fixed: true,
        why: 'a write held by one broker was acknowledged: that broker lost, the write is lost',
      });
    }
    if (changes.length === 0) continue;
    // alterConfigs replaces a topic's whole set of overrides: the ones it has are sent along.
    const kept = resource.configEntries
      .filter((e) => e.configSource === TOPIC_OVERRIDE && !changes.some((c) => c.name === e.configName))
      .map((e) => ({ name: e.configName, value: e.configValue }));
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: TOPIC_RESOURCE, name: spec.name, configEntries: [...kept, ...changes] }],
    });
  }
  return findings;
}

function finding(
  topic: string,
  setting: 'retention.ms' | 'segment.ms',
  found: number,
  wanted: number,
  why: string,
): TopicFinding {
  return { topic, setting, found: String(found), wanted: String(wanted), fixed: true, why };
}
