import { useEffect, useState } from 'preact/hooks';
import type { MemstreamClient } from '@memstream/client';
import { ActionForm } from './action-form.js';

type Job = Awaited<ReturnType<MemstreamClient['admin']['evictionJob']>>;
const POLL_MS = 1000;
const TYPES = [
  { value: 'conversation_groups', label: 'Deleted conversations' },
  { value: 'conversation_memberships', label: 'Removed memberships' },
] as const;

/**
 * An eviction (admin): hard-deletes what was soft-deleted longer ago than the retention period,
 * then follows the job until it ends. The API lists no past evictions; the audit log has them.
 */
export function EvictionForm({ client }: { client: MemstreamClient }) {
  const [period, setPeriod] = useState('P90D');
  const [types, setTypes] = useState<Set<string>>(new Set(TYPES.map((t) => t.value)));
  const [job, setJob] = useState<Job | undefined>();
  useEffect(() => {
    if (!job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
    const abort = new AbortController();
    const timer = setTimeout(
      () =>
        void client.admin.evictionJob(job.jobId, { signal: abort.signal }).then(setJob, () => {
          // a failed read leaves the last state shown; the next one tries again
          if (!abort.signal.aborted) setJob({ ...job });
        }),
      POLL_MS,
    );
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [client, job]);
  return (
    <ActionForm
      name="Evict"
      submitLabel="Evict"
      onSubmit={async (justification) => {
        const resourceTypes = TYPES.map((t) => t.value).filter((v) => types.has(v));
        if (resourceTypes.length === 0) throw new Error('Choose what to evict.');
        setJob(await client.admin.startEviction({ retentionPeriod: period.trim(), resourceTypes, justification }));
        return 'Eviction started.';
      }}
    >
      <label>
        Deleted longer ago than (ISO 8601 duration: P90D, P1Y, PT24H)
        <input
          type="text"
          name="retentionPeriod"
          required
          value={period}
          onInput={(e) => setPeriod(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>What to evict</legend>
        {TYPES.map((t) => (
          <label class="inline">
            <input
              type="checkbox"
              name="resourceTypes"
              value={t.value}
              checked={types.has(t.value)}
              onChange={(e) => {
                const next = new Set(types);
                if (e.currentTarget.checked) next.add(t.value);
                else next.delete(t.value);
                setTypes(next);
              }}
            />{' '}
            {t.label}
          </label>
        ))}
      </fieldset>
      {job && (
        <p aria-live="polite" data-testid="eviction-job">
          Job {job.jobId}: {job.status.toLowerCase()}, {job.progress}%
          {Object.keys(job.counts).length > 0 &&
            ` (${Object.entries(job.counts)
              .map(([k, n]) => `${k}: ${n}`)
              .join(', ')})`}
          {job.error && `: ${job.error}`}
        </p>
      )}
    </ActionForm>
  );
}
