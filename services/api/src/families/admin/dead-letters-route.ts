import { CORRELATION_HEADER, DLQ_HEADERS, latestRecords, type BusRecord, type RetainedRecords } from '@memstream/bus';
import { AppError } from '@memstream/errors';
import { DeadLetterList, DeadLettersQuery, TOPICS, type DeadLetterRecord } from '@memstream/schemas';
import type { Halves } from '../../shared/halves.js';
import { adminDocs as docs } from './docs.js';
import { auditMore, requireRole } from './audit.js';

/** Characters of a record's value shown; the rest is counted in valueBytes. */
const VALUE_LIMIT = 4000;
const DEAD_LETTER_TOPICS = Object.values(TOPICS).map((t) => t.dlq);

/**
 * `GET /v1/admin/dead-letters`: the latest records of each dead-letter topic with the reason the
 * bus wrote on them (libs/bus deliver), read from Kafka or from the embedded mode's journal. A
 * dead letter is a message as it was sent, content and all, so this is an auditor's read like
 * any other of people's content: refused (403) to everyone else, and written to the audit log
 * with how many records it returned, never what they held.
 */
export function registerDeadLettersRoute({ reads }: Halves, transport: RetainedRecords | undefined): void {
  reads?.get(
    '/v1/admin/dead-letters',
    docs.route({
      summary: 'The latest dead-lettered records of each .dlq topic, with their reason (auditor)',
      description:
        "memstream's addition, for the console's pipeline view. Up to limit records per topic, newest first; each value is cut at valueLimit characters.",
      querystring: DeadLettersQuery,
      responses: { 200: DeadLetterList },
    }),
    async (request) => {
      requireRole(request, 'auditor', 'listDeadLetters');
      const q = request.query;
      auditMore(request, { params: { topic: q.topic ?? null, limit: q.limit } });
      if (!transport)
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'This process reads no bus: dead letters are not available here');
      const topics = q.topic === undefined ? DEAD_LETTER_TOPICS : [q.topic];
      const data = await Promise.all(
        topics.map(async (topic) => {
          const latest = await latestRecords(transport, topic, q.limit);
          return { topic, retained: latest.retained, records: latest.records.map(deadLetterView) };
        }),
      );
      auditMore(request, { counts: { records: data.reduce((n, t) => n + t.records.length, 0) } });
      return { valueLimit: VALUE_LIMIT, data };
    },
  );
}

function deadLetterView(record: BusRecord): DeadLetterRecord {
  const h = record.headers;
  const int = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);
  const text = record.value.toString('utf8');
  return {
    partition: record.partition,
    offset: record.offset,
    key: record.key,
    reason: h[DLQ_HEADERS.reason] ?? null,
    code: h[DLQ_HEADERS.code] ?? null,
    attempts: int(h[DLQ_HEADERS.attempts]),
    sourceTopic: h[DLQ_HEADERS.topic] ?? null,
    sourcePartition: int(h[DLQ_HEADERS.partition]),
    sourceOffset: h[DLQ_HEADERS.offset] ?? null,
    consumerGroup: h[DLQ_HEADERS.groupId] ?? null,
    correlationId: h[CORRELATION_HEADER] ?? null,
    value: text.length > VALUE_LIMIT ? text.slice(0, VALUE_LIMIT) : text,
    valueBytes: record.value.length,
  };
}
