import { useEffect, useState } from 'preact/hooks';
import type { MemstreamClient } from '@memstream/client';
import { ActionForm } from './action-form.js';

/**
 * An export (admin): one person's data, or the whole server's, read as it streams and offered as
 * an NDJSON file. An export whose end record never came was cut short, and is said to be.
 */
export function ExportForm({ client }: { client: MemstreamClient }) {
  const [userId, setUserId] = useState('');
  const [file, setFile] = useState<{ url: string; name: string; records: number } | undefined>();
  useEffect(() => () => file && URL.revokeObjectURL(file.url), [file]);
  return (
    <ActionForm
      name="Export data"
      submitLabel="Export"
      onSubmit={async (justification) => {
        const person = userId.trim();
        const lines: string[] = [];
        let complete = false;
        for await (const record of client.admin.exportData({ ...(person ? { userId: person } : {}), justification })) {
          lines.push(JSON.stringify(record));
          complete = record.kind === 'end';
        }
        if (!complete) throw new Error('The export was cut short (no end record): try again.');
        const url = URL.createObjectURL(new Blob([`${lines.join('\n')}\n`], { type: 'application/x-ndjson' }));
        setFile({ url, name: `memstream-export-${person || 'all'}.ndjson`, records: lines.length });
        return `Exported ${lines.length} records.`;
      }}
    >
      <label>
        Person (empty: the whole server)
        <input type="text" name="userId" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
      </label>
      {file && (
        <p>
          <a href={file.url} download={file.name} data-testid="export-file">
            Download {file.name} ({file.records} records)
          </a>
        </p>
      )}
    </ActionForm>
  );
}
