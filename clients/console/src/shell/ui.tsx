import type { ComponentChildren } from 'preact';
import { MemstreamError } from '@memstream/client';
import type { Loaded } from './use-load.js';

/** What went wrong, in words a person can act on; `role=alert` so screen readers announce it. */
export function ErrorBox({ error }: { error: unknown }) {
  return (
    <div class="error" role="alert" data-testid="error">
      <strong>Something went wrong.</strong> {describe(error)}
    </div>
  );
}

export function describe(error: unknown): string {
  if (error instanceof MemstreamError) {
    if (error.status === 0) return `The server could not be reached (${error.code}).`;
    return `${error.message} (${error.status} ${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A not-found or forbidden answer: to a person, a conversation they may not read does not exist. */
export function isAbsent(error: unknown): boolean {
  return error instanceof MemstreamError && (error.status === 404 || error.status === 403);
}

/** Renders a load: its value (kept while a reload runs), a spinner the first time, or the error. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (value: T) => ComponentChildren }) {
  return (
    <>
      {loaded.state === 'failed' &&
        (isAbsent(loaded.error) ? (
          <Empty>Nothing here that you can read: no conversation with this id, or not yours to see.</Empty>
        ) : (
          <ErrorBox error={loaded.error} />
        ))}
      {loaded.value !== undefined
        ? children(loaded.value)
        : loaded.state === 'loading' && (
            <p class="muted" aria-busy="true">
              Loading…
            </p>
          )}
    </>
  );
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A time as a `<time>` element: readable, with the exact instant machine-readable. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  return <time dateTime={date.toISOString()}>{dateTime.format(date)}</time>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
