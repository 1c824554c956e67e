import { useState } from 'preact/hooks';
import type { Session } from '../shell/session.js';
import { linkProps, navigate, queryOf, seg, type Location } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { focusQuery } from '../memories/episodes.js';
import { METHODS, runSearch, type Method, type SearchInput } from './run-search.js';
import { ScorePartsView } from './score-parts.js';

const SCORE_TEXT: Readonly<Record<Method, string>> = {
  keyword: 'BM25 over the searched scope, divided by the most any item could score',
  vector: 'cosine similarity, floored at 0',
  hybrid:
    'keyword and vector, each rescaled over the candidates and weighted, plus the turns around, the memories made from it, the speaker, the day and a “when”, divided by the most it could be',
  rrf: 'reciprocal rank fusion (k = 60) of the keyword and vector lists, divided by its maximum',
};

/** Search what the caller may read; the query lives in the address, so a search is a link. */
export function SearchPage({ session, location }: { session: Session; location: Location }) {
  const q = location.query;
  const input: SearchInput | undefined = q.get('q')
    ? {
        query: q.get('q')!,
        method: (METHODS as readonly string[]).includes(q.get('method') ?? '') ? (q.get('method') as Method) : 'hybrid',
        ...(q.get('group') ? { groupId: q.get('group')! } : {}),
        memoryTypes:
          q.get('types') === 'message'
            ? ['message']
            : q.get('types') === 'episodic_memory'
              ? ['episodic_memory']
              : ['message', 'episodic_memory'],
        topK: Number(q.get('k') ?? 10) || 10,
      }
    : undefined;
  const [draft, setDraft] = useState({
    q: q.get('q') ?? '',
    method: q.get('method') ?? 'hybrid',
    group: q.get('group') ?? '',
    types: q.get('types') ?? '',
    k: q.get('k') ?? '10',
  });
  const { loaded } = useLoad(
    (signal) => (input ? runSearch(session.client, input, signal) : Promise.resolve(undefined)),
    [session, location.query.toString()],
  );
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Search
      </h1>
      <form
        class="filters"
        aria-label="Search memories and messages"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/search${queryOf(draft)}`);
        }}
      >
        <label class="grow">
          Query
          <input
            type="search"
            name="q"
            required
            value={draft.q}
            onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })}
          />
        </label>
        <label>
          Mode
          <select
            name="method"
            value={draft.method}
            onChange={(e) => setDraft({ ...draft, method: e.currentTarget.value })}
          >
            {METHODS.map((m) => (
              <option value={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Conversation (optional)
          <input
            type="text"
            name="group"
            value={draft.group}
            onInput={(e) => setDraft({ ...draft, group: e.currentTarget.value })}
          />
        </label>
        <label>
          Kinds
          <select
            name="types"
            value={draft.types}
            onChange={(e) => setDraft({ ...draft, types: e.currentTarget.value })}
          >
            <option value="">Messages and memories</option>
            <option value="message">Messages</option>
            <option value="episodic_memory">Episodic memories</option>
          </select>
        </label>
        <label>
          Results
          <input
            type="number"
            name="k"
            min={1}
            max={100}
            value={draft.k}
            onInput={(e) => setDraft({ ...draft, k: e.currentTarget.value })}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      {input && (
        <Show loaded={loaded}>
          {(result) =>
            result === undefined ? null : result.hits.length === 0 ? (
              <Empty>Nothing found in what you can read.</Empty>
            ) : (
              <>
                <p class="muted" id="score-note">
                  Score ({result.method}): {SCORE_TEXT[input.method]}. Each hit shows its score's parts as the server
                  fused them: its score and rank (#) in the keyword and the vector list (— when not in it), and each
                  term, weight × value, whose sum divided by the divisor is the score.
                </p>
                <ol class="hits" data-testid="hits">
                  {result.hits.map((hit) => (
                    <li class="card" data-hit-id={hit.id}>
                      <p class="content">{hit.content}</p>
                      {hit.score_parts ? (
                        <ScorePartsView parts={hit.score_parts} />
                      ) : (
                        <dl class="scores">
                          <dt>Score</dt>
                          <dd data-testid="score">{hit.score.toFixed(3)}</dd>
                        </dl>
                      )}
                      <p class="muted small">
                        {hit.memory_type === 'message' ? 'Message' : 'Episodic memory'} in{' '}
                        <a {...linkProps(`/conversations/${seg(hit.group_id)}`)}>{hit.group_id}</a>
                        {hit.user_id && <> · {hit.user_id}</>} · <When iso={hit.timestamp} /> ·{' '}
                        <a {...linkProps(`/conversations/${seg(hit.group_id)}${focusQuery(hit.message_ids)}`)}>
                          {hit.memory_type === 'message'
                            ? 'show in its conversation'
                            : `its ${hit.message_ids.length} source messages`}
                        </a>
                      </p>
                    </li>
                  ))}
                </ol>
              </>
            )
          }
        </Show>
      )}
    </section>
  );
}
