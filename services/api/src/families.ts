import type { ApiFamilyPlugin } from './api-deps.js';
import { admin } from './families/admin/index.js';
import { ark } from './families/ark/index.js';
import { consoleFamily } from './families/console/index.js';
import { everMemOs } from './families/evermemos/index.js';
import { kaos } from './families/kaos/index.js';
import { memoryAgent } from './families/memory-agent/index.js';
import { memoryService } from './families/memory-service/index.js';

/** Every API family memstream speaks, in the order their routes are registered (and listed in the document). */
export const FAMILIES: readonly ApiFamilyPlugin[] = [
  everMemOs,
  memoryAgent,
  ark,
  memoryService,
  kaos,
  admin,
  consoleFamily,
];

/** Each family's documentation (its tag, its error envelope, the path prefixes it owns), in the order the document lists their tags. */
export const API_FAMILIES = [everMemOs, ark, memoryAgent, memoryService, admin, kaos, consoleFamily].map(
  (family) => family.docs,
);
