import { apiFamily } from '@memstream/http';
import { MemoryServiceErrorBody, memoryServiceErrorShape } from '../memory-service/error-shape.js';

/**
 * memory-service's admin and auditor API, in memory-service's error shape; its audit log read is
 * memstream's addition.
 */
export const adminDocs = apiFamily(
  'memory-service admin',
  "The admin and auditor API of the memory-service (every person's conversations, search across everyone, eviction) and the audit log every call of it writes",
  { body: MemoryServiceErrorBody, shape: memoryServiceErrorShape, paths: ['/v1/admin', '/v1/me'] },
);
