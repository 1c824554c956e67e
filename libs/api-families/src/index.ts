export {
  API_FAMILIES,
  everMemOsDocs,
  arkDocs,
  memoryAgentDocs,
  memoryServiceDocs,
  adminDocs,
  kaosDocs,
} from './families.js';
export { everMemOsErrorShape, EverMemOsErrorBody } from './error-shapes/evermemos.js';
export { arkErrorShape, ArkErrorBody } from './error-shapes/ark.js';
export { memoryServiceErrorShape, MemoryServiceErrorBody } from './error-shapes/memory-service.js';
export { kaosErrorShape, KaosErrorBody } from './error-shapes/kaos.js';
