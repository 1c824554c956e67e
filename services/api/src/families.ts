import { SourceApi } from '@memstream/schemas';
import type { ApiFamilyPlugin } from './api-deps.js';
import { admin } from './families/admin/index.js';
import { ark } from './families/ark/index.js';
import { consoleFamily } from './families/console/index.js';
import { everMemOs } from './families/evermemos/index.js';
import { kaos } from './families/kaos/index.js';
import { memoryAgent } from './families/memory-agent/index.js';
import { memoryService } from './families/memory-service/index.js';

/** The plugin speaking each family of SourceApi: one added there without a plugin here fails the type check. */
const PLUGIN_OF: Readonly<Record<SourceApi, ApiFamilyPlugin>> = {
  evermemos: everMemOs,
  ark,
  'memory-service': memoryService,
  kaos,
  'memory-agent': memoryAgent,
};

/**
 * Every API family memstream speaks, in the order their routes are registered and the document
 * lists their tags: SourceApi's families in its order, then memstream's own (admin, console).
 */
export const FAMILIES: readonly ApiFamilyPlugin[] = [
  ...SourceApi.options.map((name) => PLUGIN_OF[name]),
  admin,
  consoleFamily,
];

/** Each family's documentation (its tag, its error envelope, the path prefixes it owns). */
export const API_FAMILIES = FAMILIES.map((family) => family.docs);
