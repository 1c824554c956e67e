import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Loaded<T> =
  | { readonly state: 'loading'; readonly value?: T }
  | { readonly state: 'done'; readonly value: T }
  | { readonly state: 'failed'; readonly error: unknown; readonly value?: T };

/**
 * Runs `load` when `deps` change and on `reload()`; an answer that arrives after a newer load
 * started is dropped, so a slow first answer never overwrites a fresh one. The previous value
 * stays shown while a reload runs, so a live view does not flicker.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]) {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const generation = useRef(0);
  const controller = useRef<AbortController | undefined>(undefined);
  const run = useCallback(() => {
    const mine = ++generation.current;
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setLoaded((prev) => ({ state: 'loading', ...(prev.value === undefined ? {} : { value: prev.value }) }));
    load(abort.signal).then(
      (value) => mine === generation.current && setLoaded({ state: 'done', value }),
      (error: unknown) => {
        if (mine !== generation.current || abort.signal.aborted) return;
        setLoaded((prev) => ({ state: 'failed', error, ...(prev.value === undefined ? {} : { value: prev.value }) }));
      },
    );
  }, deps);
  useEffect(() => {
    run();
    return () => controller.current?.abort();
  }, [run]);
  return { loaded, reload: run };
}
