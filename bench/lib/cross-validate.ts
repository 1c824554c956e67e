/**
 * Cross-validation of the contextual ranking's weights across conversations: for each
 * conversation, fit the weights on the others' questions and measure on its own. Fitting is a
 * coordinate ascent over a small grid per weight (each weight in turn set to the value that gives
 * the best mean recall@10 on the training questions, until a round changes nothing): coarse on
 * purpose, so there is little to over-fit with four conversations.
 */
import { rankByFeatures, type RankFeatures, type RankingParams } from '@memstream/search';

export interface Scored {
  readonly conversation: string;
  readonly evidence: readonly string[];
  readonly features: RankFeatures;
}

export const GRID: Record<keyof RankingParams, readonly number[]> = {
  vectorWeight: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
  context: [0, 0.1, 0.2, 0.3, 0.5, 0.7, 1],
  memory: [0, 0.05, 0.1, 0.2, 0.4, 0.6],
  participant: [0, 0.05, 0.1, 0.2, 0.3],
  date: [0, 0.05, 0.1, 0.2, 0.4, 0.6],
  when: [0, 0.05, 0.1, 0.2, 0.3],
};

export const START: RankingParams = { vectorWeight: 0.4, context: 0, memory: 0, participant: 0, date: 0, when: 0 };

/** The share of a question's evidence turns among the first k message hits. */
export function recallAt(q: Scored, params: RankingParams, ks: readonly number[]): number[] {
  const ranked = rankByFeatures(q.features, params, false);
  return ks.map((k) => {
    const found = new Set(ranked.slice(0, k).flatMap((h) => h.message_ids));
    return q.evidence.filter((e) => found.has(e)).length / q.evidence.length;
  });
}

const meanRecall10 = (qs: readonly Scored[], p: RankingParams) =>
  qs.reduce((s, q) => s + recallAt(q, p, [10])[0]!, 0) / qs.length;

export function fit(train: readonly Scored[]): RankingParams {
  let best: RankingParams = START;
  let bestScore = meanRecall10(train, best);
  for (let round = 0; round < 4; round++) {
    let changed = false;
    for (const name of Object.keys(GRID) as Array<keyof RankingParams>) {
      for (const value of GRID[name]) {
        if (value === best[name]) continue;
        const candidate = { ...best, [name]: value };
        const score = meanRecall10(train, candidate);
        // a change must win by more than one question's worth of noise, or the simpler weights stay
        if (score > bestScore + 0.5 / train.length) {
          best = candidate;
          bestScore = score;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return best;
}

export interface Fold {
  readonly heldOut: string;
  readonly params: RankingParams;
  /** The held-out conversation's questions, each with its recall at every k under the fitted weights. */
  readonly recalls: ReadonlyArray<{ q: Scored; recall: number[] }>;
}

export function crossValidate(questions: readonly Scored[], ks: readonly number[]): Fold[] {
  const conversations = [...new Set(questions.map((q) => q.conversation))];
  return conversations.map((heldOut) => {
    const params = fit(questions.filter((q) => q.conversation !== heldOut));
    const test = questions.filter((q) => q.conversation === heldOut);
    return { heldOut, params, recalls: test.map((q) => ({ q, recall: recallAt(q, params, ks) })) };
  });
}
