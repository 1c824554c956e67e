import { operationalTable } from '../../participant/operational.js';

export const auditLog = operationalTable(
  'audit_log',
  'who did what to whom, kept as the record of it, an erasure included',
);
