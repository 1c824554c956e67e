import { apiFamily, DefaultErrorBody } from '@memstream/http';
import { ArkErrorBody } from './error-shapes/ark.js';
import { EverMemOsErrorBody } from './error-shapes/evermemos.js';
import { KaosErrorBody } from './error-shapes/kaos.js';
import { MemoryServiceErrorBody } from './error-shapes/memory-service.js';

/** memstream's API families, each documented with the error envelope its routes answer with. */
export const everMemOsDocs = apiFamily('EverMemOS', 'EverMemOS group-chat memory API: writes are held until stored (read-your-writes)', EverMemOsErrorBody);

export const arkDocs = apiFamily('ARK', "ARK's Memory API: message batches, sessions and Server-Sent Event streams", ArkErrorBody);

export const memoryAgentDocs = apiFamily('Memory Agent', 'Rolling summaries and the context an agent needs at the start of a round', DefaultErrorBody);

export const memoryServiceDocs = apiFamily(
  'memory-service',
  'Conversations with forks, sharing and ownership: the document layout (/v1/user, /v1/agent) and the code layout (/v1/conversations) of the memory-service',
  MemoryServiceErrorBody,
);

export const kaosDocs = apiFamily(
  'KAOS',
  "KAOS agent memory: sessions and typed events in an agent's namespace (X-KAOS-Agent), KAOS's own /memory reads, and one route per LocalMemory operation",
  KaosErrorBody,
);

/** Every family, in the order the document lists their tags. */
export const API_FAMILIES = [everMemOsDocs, arkDocs, memoryAgentDocs, memoryServiceDocs, kaosDocs] as const;
