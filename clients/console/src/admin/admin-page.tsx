import { useState } from 'preact/hooks';
import type { Session } from '../shell/session.js';
import { navigate, seg } from '../shell/router.js';
import { ActionForm } from './action-form.js';
import { AuditLog } from './audit-log.js';
import { ErasureList } from './erasure-list.js';
import { EvictionForm } from './eviction-form.js';
import { ExportForm } from './export-form.js';

/**
 * Governance, for admins and auditors: erasures with their receipts and the audit log for both;
 * erasing a person, exporting and evicting for admins only, each with a justification. The
 * server checks every call again; the console only leaves out what it would refuse.
 */
export function AdminPage({ session }: { session: Session }) {
  const acts = session.roles.includes('admin');
  const [version, setVersion] = useState(0);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Admin
      </h1>
      <p class="muted">
        {acts
          ? 'You hold the admin role: you may read and act. Every call, yours included, is in the audit log.'
          : 'You hold the auditor role: you may read the erasures and the audit log. Acting needs the admin role.'}
      </p>
      <h2 id="erasures">Erasures</h2>
      {acts && (
        <EraseForm
          session={session}
          onErased={(id) => {
            setVersion(version + 1);
            navigate(`/admin/erasures/${seg(id)}`);
          }}
        />
      )}
      <ErasureList client={session.client} version={version} />
      {acts && (
        <>
          <h2 id="exports">Exports</h2>
          <ExportForm client={session.client} />
          <h2 id="evictions">Evictions</h2>
          <EvictionForm client={session.client} />
        </>
      )}
      <h2 id="audit">Audit log</h2>
      <AuditLog client={session.client} version={version} />
    </section>
  );
}

function EraseForm({ session, onErased }: { session: Session; onErased: (id: string) => void }) {
  const [userId, setUserId] = useState('');
  return (
    <ActionForm
      name="Erase a person"
      submitLabel="Erase this person"
      onSubmit={async (justification) => {
        const accepted = await session.client.admin.erase({ userId: userId.trim(), justification });
        setUserId('');
        onErased(accepted.id);
        return undefined;
      }}
    >
      <p class="small muted">
        Removes the person from every family, with everything made from their words. It cannot be undone.
      </p>
      <label>
        Person to erase
        <input
          type="text"
          name="userId"
          required
          autoComplete="off"
          value={userId}
          onInput={(e) => setUserId(e.currentTarget.value)}
        />
      </label>
    </ActionForm>
  );
}
