export { Lifecycle, type LifecycleOptions } from './lifecycle.js';
export { runProcess, type ProcessContext } from './run-process.js';
