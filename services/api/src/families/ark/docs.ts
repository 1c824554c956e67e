import { apiFamily } from '@memstream/http';
import { ArkErrorBody, arkErrorShape } from './error-shape.js';

/** ARK's tag in the document, its error body, and the paths whose unrouted errors come in it. */
export const arkDocs = apiFamily('ARK', "ARK's Memory API: message batches, sessions and Server-Sent Event streams", {
  body: ArkErrorBody,
  shape: arkErrorShape,
  paths: ['/messages', '/sessions', '/session', '/stream'],
});
