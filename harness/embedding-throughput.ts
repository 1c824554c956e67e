/**
 * Embedding speed as a memory pipeline sees it, shared by the local-model test (which prints it)
 * and `npm run bench:embedding` (which prints more of it). Nothing here asserts on time.
 *
 * The documents imitate LoCoMo's dialogue turns: two friends catching up about their lives,
 * 20–40 words a turn. They are made from templates, deterministically, so every run embeds the
 * same text.
 */
import type { Embedder } from '@memstream/embedding';

const NAMES = ['Caroline', 'Melanie', 'Jon', 'Gina', 'Audrey', 'Andrew', 'Joanna', 'Nate', 'Tim', 'John'];
const ACTIVITIES = [
  'went to a pottery class',
  'ran a charity race',
  'visited my grandmother',
  'started a new painting',
  'adopted a puppy from the shelter',
  'went camping by the lake',
  'joined a support group',
  'signed up for a dance studio',
  'finished reading a novel about family',
  'took the kids to the museum',
  'volunteered at the youth center',
  'tried a new recipe',
];
const TIMES = [
  'last weekend',
  'yesterday',
  'on Sunday',
  'two weeks ago',
  'this morning',
  'last summer',
  'on my birthday',
];
const FEELINGS = [
  'It honestly made me feel so grateful and calm',
  'I was nervous at first but it turned out to be really fun',
  'It reminded me how much I love spending time outdoors',
  'Everyone there was so welcoming and kind to me',
  'I think I want to make it a regular thing from now on',
];
const FOLLOW_UPS = [
  'How have you been doing lately?',
  'Have you ever tried something like that?',
  'What are you up to this week?',
  'I would love to hear what you think about it.',
  'Let me know if you want to come along next time!',
];

/** `count` turns of 20–40 words each. */
export function locomoTurns(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const pick = <T>(items: readonly T[], salt: number) => items[(i * salt + salt) % items.length]!;
    const parts = [
      `Hey ${pick(NAMES, 7)}! I ${pick(ACTIVITIES, 5)} ${pick(TIMES, 3)}.`,
      `${pick(FEELINGS, 11)}.`,
      i % 3 === 0 ? `${pick(NAMES, 13)} came along too.` : '',
      pick(FOLLOW_UPS, 17),
    ];
    return parts.filter((p) => p !== '').join(' ');
  });
}

/** A question a search box gets: a handful of words. */
export function shortQueries(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `Who ${ACTIVITIES[(i * 5) % ACTIVITIES.length]} ${TIMES[i % TIMES.length]}?`,
  );
}

export interface ThroughputFigures {
  readonly documentsPerSecond: number;
  readonly queryP50Ms: number;
  readonly queryP95Ms: number;
}

/**
 * Documents embedded in calls of `batchSize`, one call after another, then `queries` single
 * short queries one after another. One warm-up call first: the first inference allocates.
 */
export async function measureThroughput(
  embedder: Embedder,
  options: { documents: readonly string[]; batchSize: number; queries: number },
): Promise<ThroughputFigures> {
  await embedder.embed(options.documents.slice(0, options.batchSize), 'document');
  const started = performance.now();
  for (let i = 0; i < options.documents.length; i += options.batchSize) {
    await embedder.embed(options.documents.slice(i, i + options.batchSize), 'document');
  }
  const documentsPerSecond = Math.round((options.documents.length * 1000) / (performance.now() - started));
  const latencies: number[] = [];
  for (const query of shortQueries(options.queries)) {
    const start = performance.now();
    await embedder.embed([query], 'query');
    latencies.push(performance.now() - start);
  }
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]! * 10) / 10;
  return { documentsPerSecond, queryP50Ms: percentile(0.5), queryP95Ms: percentile(0.95) };
}
