export { runGovernance, type GovernanceWork } from './run-governance.js';
export { governanceEnv, governanceSettings, type GovernanceConfig } from './config.js';
export { startLeaseSweeps, keepingLease, type LeaseSweeps, type RunnerLog, type SweptWork } from './lease-sweep.js';
export { createEraser, type Eraser, type ErasureSettings } from './erasure-worker.js';
export {
  erasureSteps,
  runErasureJob,
  takeOneErasure,
  type ErasureRunnerOptions,
  type ErasureStep,
  type OutsideWork,
} from './erasure-runner.js';
export { runEvictionJob, sweepEvictionJobs, type EvictionRunnerOptions } from './eviction-runner.js';
export { evictionWork, type EvictionSettings } from './eviction-worker.js';
export {
  runRetention,
  type RetentionPeriods,
  type RetentionRun,
  type RetentionRunnerOptions,
} from './retention-runner.js';
export { retentionPeriodsOf } from './retention-job.js';
export { consumedTopics, transportEraser } from './transport-erasure.js';
