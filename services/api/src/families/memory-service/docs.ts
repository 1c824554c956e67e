import { apiFamily } from '@memstream/http';
import { MemoryServiceErrorBody, memoryServiceErrorShape } from './error-shape.js';

/** memory-service's tag in the document, its error body, and the paths whose unrouted errors come in it. */
export const memoryServiceDocs = apiFamily(
  'memory-service',
  'Conversations with forks, sharing and ownership: the document layout (/v1/user, /v1/agent) and the code layout (/v1/conversations) of the memory-service',
  { body: MemoryServiceErrorBody, shape: memoryServiceErrorShape, paths: ['/v1'] },
);
