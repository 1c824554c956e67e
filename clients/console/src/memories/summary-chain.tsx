import type { SummaryRow } from '@memstream/client';
import type { Session } from '../shell/session.js';
import { linkProps, queryOf, seg } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';

/**
 * A conversation's rolling summaries, newest first: each with the window of messages it covers
 * (a link that marks them) and the version it was built on.
 */
export function SummaryChain({ session, id }: { session: Session; id: string }) {
  const { loaded } = useLoad(
    (signal) => session.client.memoryAgent.summaries(id, { signal }).then((r) => r.summaries),
    [session, id],
  );
  return (
    <Show loaded={loaded}>
      {(rows: SummaryRow[]) =>
        rows.length === 0 ? (
          <Empty>No rolling summary yet: one starts once the conversation has a few messages.</Empty>
        ) : (
          <ol class="summaries" reversed data-testid="summaries">
            {[...rows].reverse().map((s) => (
              <li class="card" id={`summary-${s.memory_id}`}>
                <h3>
                  Version {s.memory_id} <span class={`badge ${s.status}`}>{s.status}</span>
                </h3>
                <dl class="facts">
                  <dt>Window</dt>
                  <dd>
                    <a
                      {...linkProps(
                        `/conversations/${seg(id)}${queryOf({ window: `${s.start_sequence}-${s.end_sequence}` })}`,
                      )}
                    >
                      messages {s.start_sequence}–{s.end_sequence}
                    </a>
                  </dd>
                  <dt>Built on</dt>
                  <dd>
                    {s.base_memory_id === null ? (
                      'nothing (the first)'
                    ) : (
                      <a href={`#summary-${s.base_memory_id}`}>version {s.base_memory_id}</a>
                    )}
                  </dd>
                  <dt>Made</dt>
                  <dd>
                    <When iso={s.created_at} />
                    {s.generation_time_ms !== null && ` in ${s.generation_time_ms} ms`}
                    {s.attempts > 1 && `, ${s.attempts} attempts`}
                  </dd>
                  {s.error && (
                    <>
                      <dt>Error</dt>
                      <dd>{s.error}</dd>
                    </>
                  )}
                </dl>
                {s.memory_text && <pre class="summary-text">{s.memory_text}</pre>}
              </li>
            ))}
          </ol>
        )
      }
    </Show>
  );
}
