export { downloadWheel, PinnedWheelError, type DownloadOptions, type WheelPin } from './download-wheel.js';
export { readZipEntries } from './zip-entries.js';
