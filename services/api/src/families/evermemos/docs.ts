import { apiFamily } from '@memstream/http';
import { EverMemOsErrorBody, everMemOsErrorShape } from './error-shape.js';

/** EverMemOS's tag in the document, its error envelope, and the paths whose unrouted errors come in it. */
export const everMemOsDocs = apiFamily(
  'EverMemOS',
  'EverMemOS group-chat memory API: writes are held until stored (read-your-writes)',
  {
    body: EverMemOsErrorBody,
    shape: everMemOsErrorShape,
    paths: ['/api/v1'],
  },
);
