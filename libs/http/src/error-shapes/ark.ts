import type { ErrorShape } from './error-shape.js';

/** ARK's memory services answer errors as a small JSON object with the reason. */
export const arkErrorShape: ErrorShape = (error) => ({ error: error.message, code: error.code });
