export {
  downloadPinnedWheel,
  PinnedWheelError,
  targetOf,
  type PipDownloadOptions,
  type WheelPin,
} from './pip-download.js';
export { readZipEntries } from './zip-entries.js';
