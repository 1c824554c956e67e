import { useEffect, useRef, useState } from 'preact/hooks';
import { MemstreamError, type MemstreamClient } from '@memstream/client';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'closed';

/**
 * Follows a conversation's live events over SSE (the ARK stream, which carries the new messages
 * of every family to whoever may read them) and calls `changed` for each, so the view reads the
 * conversation again. When the stream breaks it reconnects after a pause and reads again, so
 * nothing written meanwhile is missed; it stops for good when the server says the caller may no
 * longer read the conversation.
 */
export function useLiveUpdates(client: MemstreamClient, id: string, changed: () => void): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const latest = useRef(changed);
  latest.current = changed;
  useEffect(() => {
    const abort = new AbortController();
    let pending: ReturnType<typeof setTimeout> | undefined;
    // A burst of messages becomes one read.
    const soon = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        latest.current();
      }, 150);
    };
    void (async () => {
      let failures = 0;
      let opened = false;
      while (!abort.signal.aborted) {
        try {
          for await (const event of client.ark.stream(id, {
            signal: abort.signal,
            timeoutMs: 15_000,
            onOpen: () => {
              setState('live');
              // Read again after a reconnection: what was written while the stream was down.
              if (opened) soon();
              opened = true;
              failures = 0;
            },
          })) {
            if (event.type === 'chunk') soon();
          }
        } catch (err) {
          if (abort.signal.aborted) return;
          if (err instanceof MemstreamError && (err.status === 404 || err.status === 403)) {
            setState('closed');
            soon();
            return;
          }
        }
        if (abort.signal.aborted) return;
        setState('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** failures++, 15_000)));
      }
    })();
    return () => {
      abort.abort();
      if (pending) clearTimeout(pending);
    };
  }, [client, id]);
  return state;
}
