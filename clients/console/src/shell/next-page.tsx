import { ErrorBox } from './ui.js';

/**
 * The footer of a paged table: why the last page asked for did not come, if it did not, and the
 * button asking for the next one while the server gave a cursor to it.
 */
export function NextPage({
  cursor,
  label,
  onNext,
  busy = false,
  error,
}: {
  cursor: string | null | undefined;
  label: string;
  onNext: (cursor: string) => void;
  busy?: boolean;
  error?: unknown;
}) {
  return (
    <>
      {error !== undefined && <ErrorBox error={error} />}
      {cursor && (
        <button type="button" onClick={() => onNext(cursor)} disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {label}
        </button>
      )}
    </>
  );
}
