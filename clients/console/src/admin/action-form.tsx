import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describe } from '../shell/ui.js';

/**
 * An admin action: its own fields, a justification it cannot be sent without (the API keeps it in
 * the audit log), and the outcome announced (a refusal as an alert, a success politely).
 */
export function ActionForm({
  name,
  submitLabel,
  onSubmit,
  children,
}: {
  /** The form's accessible name, and the prefix of its controls' ids. */
  name: string;
  submitLabel: string;
  /** Runs the action with the justification; resolves with what to announce. */
  onSubmit: (justification: string) => Promise<string | undefined>;
  children?: ComponentChildren;
}) {
  const [justification, setJustification] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setOutcome(undefined);
    try {
      const text = await onSubmit(justification.trim());
      if (text) setOutcome({ ok: true, text });
      setJustification('');
    } catch (err) {
      setOutcome({ ok: false, text: describe(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card action" aria-label={name} onSubmit={submit}>
      {children}
      <label>
        Justification (kept in the audit log)
        <textarea
          name="justification"
          required
          maxLength={2000}
          rows={2}
          value={justification}
          onInput={(e) => setJustification(e.currentTarget.value)}
        />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Working…' : submitLabel}
      </button>
      {outcome &&
        (outcome.ok ? (
          <p role="status">{outcome.text}</p>
        ) : (
          <p class="problem" role="alert" data-testid="error">
            {outcome.text}
          </p>
        ))}
    </form>
  );
}
