import type { Session } from '../shell/session.js';
import { linkProps, seg } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { useEffect } from 'preact/hooks';
import { episodesOf, focusQuery } from './episodes.js';
import type { EpisodicMemoryView } from '@memstream/client';

/**
 * A conversation's episodes, numbered oldest first, and the episodic memories extracted from each,
 * with the messages they came from; `message` narrows it to the memories made from one message,
 * `episode` marks one episode (a message's, followed from the messages) and scrolls to it.
 */
export function MemoryList({
  session,
  id,
  message,
  episode,
}: {
  session: Session;
  id: string;
  message: string | null;
  episode: string | null;
}) {
  const { loaded } = useLoad(
    (signal) =>
      session.client.evermemos
        .list({ group_id: id, memory_type: 'episodic_memory', limit: 500 }, { signal })
        .then((page) => page.result.memories as EpisodicMemoryView[]),
    [session, id],
  );
  return (
    <Show loaded={loaded}>
      {(memories) => {
        const episodes = episodesOf(memories).flatMap((e) => {
          if (!message) return [e];
          const made = e.memories.filter((m) => m.message_ids.includes(message));
          return made.length === 0 ? [] : [{ ...e, memories: made }];
        });
        return (
          <>
            {message && (
              <p>
                Memories made from message <code>{message}</code>.{' '}
                <a {...linkProps(`/conversations/${seg(id)}/memories`)}>Show every memory</a>
              </p>
            )}
            <ScrollTo id={episode ? `episode-${episode}` : null} />
            {episodes.length === 0 ? (
              <Empty>
                No episodic memories yet: an episode closes after enough messages, a silence, or a flush, and its
                memories follow.
              </Empty>
            ) : (
              <ol class="episodes" data-testid="episodes">
                {episodes.map((e) => (
                  <li
                    class={e.key === episode ? 'card marked' : 'card'}
                    id={`episode-${e.key}`}
                    data-episode={e.number}
                    aria-current={e.key === episode ? 'true' : undefined}
                  >
                    <h3>
                      Episode {e.number}: <When iso={e.start} /> – <When iso={e.end} />
                    </h3>
                    <p>
                      <a
                        {...linkProps(`/conversations/${seg(id)}${focusQuery(e.messageIds)}`)}
                        data-testid="episode-sources"
                      >
                        Show its {e.messageIds.length} source {e.messageIds.length === 1 ? 'message' : 'messages'}
                      </a>
                    </p>
                    <ul class="memories">
                      {e.memories.map((m) => (
                        <li data-memory-id={m.id}>
                          <h4>
                            {m.title}{' '}
                            <span class="muted small">
                              {m.user_id === null ? 'the group' : `about ${m.user_id}`} · version {m.version} ·{' '}
                              {m.extractor}
                            </span>
                          </h4>
                          <p class="content">{m.content}</p>
                        </li>
                      ))}
                    </ul>
                  </li>
                ))}
              </ol>
            )}
          </>
        );
      }}
    </Show>
  );
}

/** Brings the marked episode into view once it is rendered. */
function ScrollTo({ id }: { id: string | null }) {
  useEffect(() => {
    if (id) document.getElementById(id)?.scrollIntoView({ block: 'center' });
  }, [id]);
  return null;
}
