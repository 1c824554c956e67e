import type { Session } from '../shell/session.js';
import { linkProps, seg } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { episodesOf, focusQuery } from './episodes.js';
import type { EpisodicMemoryView } from '@memstream/client';

/**
 * A conversation's episodes and the episodic memories extracted from each, with the messages they
 * came from; `message` narrows it to the memories made from one message.
 */
export function MemoryList({ session, id, message }: { session: Session; id: string; message: string | null }) {
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
        const shown = message ? memories.filter((m) => m.message_ids.includes(message)) : memories;
        const episodes = episodesOf(shown);
        return (
          <>
            {message && (
              <p>
                Memories made from message <code>{message}</code>.{' '}
                <a {...linkProps(`/conversations/${seg(id)}/memories`)}>Show every memory</a>
              </p>
            )}
            {episodes.length === 0 ? (
              <Empty>
                No episodic memories yet: an episode closes after enough messages, a silence, or a flush, and its
                memories follow.
              </Empty>
            ) : (
              <ol class="episodes" data-testid="episodes">
                {episodes.map((e) => (
                  <li class="card">
                    <h3>
                      Episode: <When iso={e.start} /> – <When iso={e.end} />
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
