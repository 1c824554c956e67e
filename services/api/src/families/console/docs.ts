import { apiFamily } from '@memstream/http';
import { MemoryServiceErrorBody, memoryServiceErrorShape } from '../memory-service/error-shape.js';

/**
 * memstream's own reads for a front end that looks across families (the console), under /v1 as
 * memory-service's routes are, and answering errors in the same shape (the edge's refusals under
 * /v1 are in it too).
 */
export const consoleDocs = apiFamily(
  'memstream console',
  "memstream's own reads across families, for the console: every conversation the caller may read in one list",
  { body: MemoryServiceErrorBody, shape: memoryServiceErrorShape, paths: ['/v1/console'] },
);
