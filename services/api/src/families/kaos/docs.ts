import { apiFamily } from '@memstream/http';
import { KaosErrorBody, kaosErrorShape } from './error-shape.js';

/** KAOS's tag in the document, its error body, and the paths whose unrouted errors come in it. */
export const kaosDocs = apiFamily(
  'KAOS',
  "KAOS agent memory: sessions and typed events in an agent's namespace (X-KAOS-Agent), KAOS's own /memory reads, and one route per LocalMemory operation",
  { body: KaosErrorBody, shape: kaosErrorShape, paths: ['/memory'] },
);
