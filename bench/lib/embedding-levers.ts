/**
 * The levers `bench:retrieval --levers` measures after the run, without changing the index: every
 * turn is embedded again in the bench process with the served local model (int8), in each text
 * form a lever asks for, and each question's message vectors are ranked exactly by cosine within
 * its conversation. Every variant goes through the same contextual ranking and cross-validation
 * as the served lists (weights fitted on three conversations, recall measured on the fourth), so
 * the turn-alone list is the control that separates a lever's gain from the difference between
 * this exact ranking and the API's. What each costs is printed beside it.
 */
import {
  DEFAULT_LOCAL_EMBEDDING_MODEL,
  embeddingSettings,
  loadConfig,
  type LocalEmbeddingModel,
} from '@memstream/config';
import type { GroupChatDocument } from '@memstream/cli';
import { createLocalEmbedder, LOCAL_MODELS, resolveModelDir } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { intentOf, rankFeatures } from '@memstream/search';
import { z } from 'zod';
import { exactVectorList, nearest, turnTexts, type TurnText } from './contextual-lever.js';
import { crossValidate, type Scored } from './cross-validate.js';
import { candidatesOf, turnsOf, type ApiHit } from './locomo-turns.js';
import { pairedDifference } from './paired-difference.js';
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
  /** Every turn alone and every question, with one local model (int8). */
  const embedAlone = async (name: LocalEmbeddingModel) => {
    const m = LOCAL_MODELS[name];
    const e = await createLocalEmbedder(
      { model: m, modelDir: resolveModelDir(undefined, m), threads: 1, batchSize: 4, weights: 'int8' },
      log,
    );
    await e.embed(["load the model first, so its cost is not counted as a turn's"], 'document');
    const cpu0 = process.cpuUsage();
    const vectors = await e.embed(
      texts.map((t) => t.alone),
      'document',
    );
    const cpu = process.cpuUsage(cpu0);
    const queries = await e.embed(
      run.questions.map((q) => q.question),
      'query',
    );
    await e.close();
    return { name: e.model, vectors, queries, cpuMs: (cpu.user + cpu.system) / 1000 / texts.length };
  };
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
  // Temporal handling: a "when" question embedded as the statement it asks about ("When did Mel
  // paint a sunrise?" -> "Mel paint a sunrise"), the turn that answers it being a statement.
  const statements = await embedder.embed(
    run.questions.map((q) => (intentOf(q.question, [], 0).asksWhen ? asStatement(q.question) : q.question)),
    'query',
  );
  await embedder.close();
  // Served with another model: today's default embeds the turns too, so the two compare on the same lists.
  const defaultModel =
    served.EMBEDDING_LOCAL_MODEL === DEFAULT_LOCAL_EMBEDDING_MODEL
      ? undefined
      : await embedAlone(DEFAULT_LOCAL_EMBEDDING_MODEL);

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
  const crossValidatedWith = (
    vectors: readonly Float32Array[],
    queryVectors: readonly Float32Array[],
    options: { prf?: number; memorySources?: number } = {},
  ): number[][] => {
    const rescored: Scored[] = run.questions.map((q, i) => {
      const asked = queryVectors[i]!;
      const query = options.prf === undefined ? asked : fedBack(asked, q.sampleId, vectors, options.prf);
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
  const crossValidated = (vectors: readonly Float32Array[], options: { prf?: number; memorySources?: number } = {}) =>
    crossValidatedWith(vectors, queries, options);

  const variants: Array<{ label: string; recalls: number[][] }> = [
    { label: 'turn alone (control)', recalls: crossValidated(alone.vectors) },
    { label: 'after the turn before', recalls: crossValidated(previous.vectors) },
    { label: 'turn alone, day in front', recalls: crossValidated(datedAlone.vectors) },
    { label: 'after the turn before, day in front', recalls: crossValidated(datedPrevious.vectors) },
    {
      label: 'after the turn before + "when" questions embedded as statements',
      recalls: crossValidatedWith(previous.vectors, statements),
    },
    ...PRF_WEIGHTS.map((w) => ({
      label: `after the turn before + query fed back from its first ${PRF_HITS} vector hits (x${w})`,
      recalls: crossValidated(previous.vectors, { prf: w }),
    })),
    {
      label: `after the turn before + source turns of the first ${MEMORY_SOURCES} memories of each list as candidates`,
      recalls: crossValidated(previous.vectors, { memorySources: MEMORY_SOURCES }),
    },
  ];
  if (defaultModel) {
    const vectorsOf = defaultModel.vectors;
    const rescoredWith = (qs: readonly Float32Array[]) => crossValidatedWith(vectorsOf, qs);
    variants.push({
      label: `${defaultModel.name}, turn alone (the default model)`,
      recalls: rescoredWith(defaultModel.queries),
    });
  }
  console.log(section('levers: exact vector lists, contextual ranking, cross-validated (held-out)'));
  console.log(
    table(
      ['lever / category', 'questions', 'recall@5', 'recall@10', 'recall@25'],
      variants.flatMap((v) => run.byCategory(v.recalls, v.label)),
    ),
  );
  const at10 = (recalls: readonly number[][]) => recalls.map((r) => r[1]!);
  const controls = [variants[0]!, ...(defaultModel ? [variants.at(-1)!] : [])];
  console.log(section('R@10 differences, paired over the same questions (95% bootstrap interval)'));
  console.log(
    table(
      ['lever', ...controls.map((c) => `vs ${c.label}`)],
      variants.map((v) => [
        v.label,
        ...controls.map((c) => {
          const d = pairedDifference(at10(v.recalls), at10(c.recalls));
          return `${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(3)} [${d.low.toFixed(3)}, ${d.high.toFixed(3)}]`;
        }),
      ]),
    ),
  );
  console.log(
    table(
      ['embedded text', 'mean chars', 'CPU ms per turn', 'wall ms per turn'],
      [
        ...[alone, previous, datedAlone, datedPrevious].map((e) => [
          e.label,
          e.chars,
          round(e.cpuMs, 2),
          round(e.wallMs, 2),
        ]),
        ...(defaultModel ? [[`${defaultModel.name}, turn alone`, alone.chars, round(defaultModel.cpuMs, 2), '-']] : []),
      ],
    ),
  );
  console.log(
    `query embedding: ${round(queryMs, 2)} ms wall per question, the same for every text form; feedback adds one more vector scan per search (no embedding), memory sources add candidates to rank (no query)`,
  );
}

/** A "when" question without its question words and mark: what a turn answering it would state. */
export function asStatement(question: string): string {
  return question
    .replace(
      /^\s*(when|what (date|day|time|year|month|week)|how long ago|which (year|month|day))\b\s*(did|does|do|was|were|is|are|has|have|had|will)?\s*/i,
      '',
    )
    .replace(/\?\s*$/, '');
}
