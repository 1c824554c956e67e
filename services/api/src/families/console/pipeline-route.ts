import { consumerLag } from '@memstream/bus';
import { AppError } from '@memstream/errors';
import type { ZodApp } from '@memstream/http';
import { ConsolePipeline, TOPICS, consumerGroupsByTopic, type PipelineGroupIds } from '@memstream/schemas';
import type { FamilyDeps } from '../../api-deps.js';
import { consoleDocs as docs } from './docs.js';

/**
 * `GET /v1/console/pipeline`: each consumer group's lag, read from the bus itself (Kafka's
 * committed offsets against each partition's end, or the embedded journal's), so the console
 * sees the lag of consumers that run in other processes, and sees it grow while one is down. It
 * holds counts and the names of groups and topics, no one's content, so any signed-in caller may
 * read it, as any caller may read /metrics.
 */
export function registerPipelineRoute(reads: ZodApp, deps: Pick<FamilyDeps, 'transport' | 'consumerGroups'>): void {
  reads.get(
    '/v1/console/pipeline',
    docs.route({
      summary: "Each consumer group's lag, from the bus's own offsets (any signed-in caller)",
      description:
        "memstream's addition. One entry per group and topic the pipeline defines: every partition's end offset against the group's committed one. A group that never committed counts every record the topic keeps.",
      responses: { 200: ConsolePipeline },
    }),
    async () => {
      const { transport, consumerGroups: groups } = deps;
      if (!transport)
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'This process reads no bus: consumer lag is not available here');
      try {
        return { data: await consumerLag(transport, topologyOf(groups)) };
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'The bus did not answer for consumer offsets', { cause: err });
      }
    },
  );
}

/** Every topic with the groups that read it, in the catalogue's order, which is the pipeline's. */
function topologyOf(groups: PipelineGroupIds): { topic: string; groupIds: readonly string[] }[] {
  const byTopic = consumerGroupsByTopic(groups);
  return (Object.keys(TOPICS) as (keyof typeof TOPICS)[]).map((k) => ({ topic: TOPICS[k].name, groupIds: byTopic[k] }));
}
