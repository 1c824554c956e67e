import type { ScoreParts } from '@memstream/client';

const fmt = (n: number) => n.toFixed(3);

const TERM_TEXT: Readonly<Record<string, string>> = {
  keyword: 'Keyword',
  vector: 'Vector',
  context: 'Turn before or after',
  memory: 'Memory made from it',
  participant: 'Names its speaker',
  date: 'On a day the query names',
  when: 'Answers a “when”',
  keyword_rank: 'Keyword rank, 1 / (60 + rank)',
  vector_rank: 'Vector rank, 1 / (60 + rank)',
};

/**
 * One hit's score as the server fused it: its place in the keyword and vector lists, then each
 * term (weight × value), and the sum over the divisor, which is the score.
 */
export function ScorePartsView({ parts }: { parts: ScoreParts }) {
  return (
    <div class="score-parts" data-testid="score-parts">
      <dl class="scores">
        <dt>Score</dt>
        <dd data-testid="score">{fmt(parts.fused)}</dd>
        <dt>Keyword</dt>
        <dd data-testid="score-keyword">
          {parts.keyword ? (
            <>
              {fmt(parts.keyword.score)} <span class="muted">(#{parts.keyword.rank})</span>
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt>Vector</dt>
        <dd data-testid="score-vector">
          {parts.vector ? (
            <>
              {fmt(parts.vector.similarity)} <span class="muted">(#{parts.vector.rank})</span>
            </>
          ) : (
            '—'
          )}
        </dd>
      </dl>
      <table class="terms" aria-describedby="score-note">
        <caption class="visually-hidden">Parts of the score</caption>
        <thead>
          <tr>
            <th scope="col">Part</th>
            <th scope="col" class="num">
              Weight
            </th>
            <th scope="col" class="num">
              Value
            </th>
            <th scope="col" class="num">
              Adds
            </th>
          </tr>
        </thead>
        <tbody>
          {parts.terms.map((t) => (
            <tr data-term={t.name}>
              <th scope="row">{TERM_TEXT[t.name] ?? t.name}</th>
              <td class="num" data-testid="term-weight">
                {fmt(t.weight)}
              </td>
              <td class="num" data-testid="term-value">
                {t.value.toFixed(6)}
              </td>
              <td class="num">{fmt(t.weight * t.value)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={3}>
              Sum ÷ <span data-testid="divisor">{parts.divisor.toFixed(6)}</span>
            </th>
            <td class="num" data-testid="fused">
              {parts.fused.toFixed(6)}
            </td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
