export { Lifecycle, type LifecycleOptions } from './lifecycle.js';
export { startPeriodicJob, type JobClock, type PeriodicJob, type PeriodicJobOptions } from './periodic-job.js';
export { runProcess, type ProcessContext } from './run-process.js';
export { Slots } from './slots.js';
