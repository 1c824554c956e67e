/**
 * The levers `bench:retrieval --levers` measures after the run, without changing the index: every
 * turn is embedded again in the bench process with the served local model (int8), in each text
 * form a lever asks for, and each question's message vectors are ranked exactly by cosine within
 * its conversation. Every variant goes through the same contextual ranking and cross-validation
 * as the served lists (weights fitted on three conversations, recall measured on the fourth), so
 * the turn-alone list is the control that separates a lever's gain from the difference between
 * this exact ranking and the API's. What each costs is printed beside it.
 */
import { embeddingSettings, loadConfig } from '@memstream/config';
import type { GroupChatDocument } from '@memstream/cli';
import { createLocalEmbedder, LOCAL_MODELS, resolveModelDir } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { intentOf, rankFeatures } from '@memstream/search';
import { z } from 'zod';
import { exactVectorList, nearest, turnTexts, type TurnText } from './contextual-lever.js';
import { crossValidate, type Scored } from './cross-validate.js';
import { candidatesOf, turnsOf, type ApiHit } from './locomo-turns.js';
import { round } from './stats.js';
import { section, table } from './table.js';

export interface LeverQuestion {
  readonly sampleId: string;
  readonly question: string;
  readonly category: number;
  readonly evidence: string[];
}

export interface LeverRun {
  readonly documents: readonly GroupChatDocument[];
  readonly groupOf: (doc: GroupChatDocument) => string;
  readonly questions: readonly LeverQuestion[];
  /** Each question's keyword and vector lists as the API returned them (messages and memories). */
  readonly lists: ReadonlyArray<{ keyword: ApiHit[]; vector: ApiHit[] }>;
  readonly ks: readonly number[];
  /** The run's `--env` settings (which local model is served). */
  readonly env: Record<string, string>;
  /** Rows of recall per category (the run's own table layout). */
  readonly byCategory: (recalls: readonly number[][], label: string) => Array<Array<string | number>>;
}

/** Pseudo relevance feedback on the vector side: the query moved toward its first hits. */
const PRF_HITS = 3;
const PRF_WEIGHTS = [0.3, 0.6] as const;
/** Memories whose source turns join the candidates: those among each list's first this many. */
const MEMORY_SOURCES = 5;

export async function measureEmbeddingLevers(run: LeverRun): Promise<void> {
  const log = createLogger({ service: 'bench-retrieval-levers', level: 'warn' });
  const served = loadConfig(
    z.object({
      EMBEDDING_LOCAL_MODEL: embeddingSettings.EMBEDDING_LOCAL_MODEL,
      MEMSTREAM_MODEL_DIR: embeddingSettings.MEMSTREAM_MODEL_DIR,
      EMBEDDING_TURN_CONTEXT: embeddingSettings.EMBEDDING_TURN_CONTEXT,
    }),
    run.env,
  );
  const model = LOCAL_MODELS[served.EMBEDDING_LOCAL_MODEL];
  const embedder = await createLocalEmbedder(
    { model, modelDir: resolveModelDir(served.MEMSTREAM_MODEL_DIR, model), threads: 1, batchSize: 4, weights: 'int8' },
    log,
  );
  console.log(
    `\nlevers measured with the local model ${embedder.model} (served turn context: ${served.EMBEDDING_TURN_CONTEXT})`,
  );
  await embedder.embed(["load the model first, so its cost is not counted as a turn's"], 'document');
  const texts = turnTexts(run.documents, run.groupOf);
  const timedEmbed = async (label: string, of: (t: TurnText) => string) => {
    const all = texts.map(of);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const vectors = await embedder.embed(all, 'document');
    const cpu = process.cpuUsage(cpu0);
    return {
      label,
      vectors,
      chars: Math.round(all.reduce((n, x) => n + x.length, 0) / all.length),
      cpuMs: (cpu.user + cpu.system) / 1000 / all.length,
      wallMs: (performance.now() - t0) / all.length,
    };
  };
  const alone = await timedEmbed('turn alone', (t) => t.alone);
  const previous = await timedEmbed('after the turn before (EMBEDDING_TURN_CONTEXT=previous)', (t) => t.withPrevious);
  const datedAlone = await timedEmbed('turn alone, its day in front', (t) => `${t.day}\n${t.alone}`);
  const datedPrevious = await timedEmbed(
    'after the turn before, the day in front',
    (t) => `${t.day}\n${t.withPrevious}`,
  );
  const q0 = performance.now();
  const queries = await embedder.embed(
    run.questions.map((q) => q.question),
    'query',
  );
  const queryMs = (performance.now() - q0) / run.questions.length;
  await embedder.close();

  const turnsByKey = turnsOf(run.documents, run.groupOf);
  const inGroup = new Map<string, number[]>();
  texts.forEach((t, i) => inGroup.set(t.group, [...(inGroup.get(t.group) ?? []), i]));
  /** The query moved toward the mean of its first vector hits, unit length again. */
  const fedBack = (query: Float32Array, group: string, vectors: readonly Float32Array[], weight: number) => {
    const members = inGroup.get(group)!;
    const top = nearest(
      query,
      members.map((i) => vectors[i]!),
      PRF_HITS,
    );
    const out = Float32Array.from(query);
    for (const { index } of top) {
      const v = vectors[members[index]!]!;
      for (let d = 0; d < out.length; d++) out[d] = out[d]! + (weight * v[d]!) / top.length;
    }
    const norm = Math.hypot(...out);
    return out.map((x) => x / norm);
  };
  const crossValidated = (
    vectors: readonly Float32Array[],
    options: { prf?: number; memorySources?: number } = {},
  ): number[][] => {
    const rescored: Scored[] = run.questions.map((q, i) => {
      const query = options.prf === undefined ? queries[i]! : fedBack(queries[i]!, q.sampleId, vectors, options.prf);
      const vector = exactVectorList(q.sampleId, query, texts, vectors, run.lists[i]!.vector, 100);
      const { messages, memories, participants } = candidatesOf(run.lists[i]!.keyword, vector, turnsByKey, {
        memorySources: options.memorySources,
      });
      return {
        conversation: q.sampleId,
        evidence: q.evidence,
        features: rankFeatures(intentOf(q.question, participants, Date.now()), messages, memories),
      };
    });
    const byQuestion = new Map(
      crossValidate(rescored, run.ks).flatMap((f) => f.recalls.map((r) => [r.q, r.recall] as const)),
    );
    return rescored.map((q) => byQuestion.get(q)!);
  };

  console.log(section('levers: exact vector lists, contextual ranking, cross-validated (held-out)'));
  console.log(
    table(
      ['lever / category', 'questions', 'recall@5', 'recall@10', 'recall@25'],
      [
        ...run.byCategory(crossValidated(alone.vectors), 'turn alone (control)'),
        ...run.byCategory(crossValidated(previous.vectors), 'after the turn before'),
        ...run.byCategory(crossValidated(datedAlone.vectors), 'turn alone, day in front'),
        ...run.byCategory(crossValidated(datedPrevious.vectors), 'after the turn before, day in front'),
        ...PRF_WEIGHTS.flatMap((w) =>
          run.byCategory(
            crossValidated(previous.vectors, { prf: w }),
            `after the turn before + query fed back from its first ${PRF_HITS} vector hits (x${w})`,
          ),
        ),
        ...run.byCategory(
          crossValidated(previous.vectors, { memorySources: MEMORY_SOURCES }),
          `after the turn before + source turns of the first ${MEMORY_SOURCES} memories of each list as candidates`,
        ),
      ],
    ),
  );
  console.log(
    table(
      ['embedded text', 'mean chars', 'CPU ms per turn', 'wall ms per turn'],
      [alone, previous, datedAlone, datedPrevious].map((e) => [
        e.label,
        e.chars,
        round(e.cpuMs, 2),
        round(e.wallMs, 2),
      ]),
    ),
  );
  console.log(
    `query embedding: ${round(queryMs, 2)} ms wall per question, the same for every text form; feedback adds one more vector scan per search (no embedding), memory sources add candidates to rank (no query)`,
  );
}
