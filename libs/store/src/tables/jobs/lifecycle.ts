import { operationalTable } from '../../participant/operational.js';

/** The governance worker's queues and leases. */
export const jobTables = [
  operationalTable('erasure_jobs', 'the erasure jobs themselves'),
  operationalTable('eviction_jobs', 'a job queue'),
  operationalTable('job_leases', 'a job queue'),
] as const;
