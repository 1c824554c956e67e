import { apiFamily, DefaultErrorBody, defaultErrorShape } from '@memstream/http';

// The Memory Agent has no HTTP error format of its own: the platform's default shape, under EverMemOS's /api/v1.
export const memoryAgentDocs = apiFamily(
  'Memory Agent',
  'Rolling summaries and the context an agent needs at the start of a round',
  {
    body: DefaultErrorBody,
    shape: defaultErrorShape,
    paths: ['/api/v1/context', '/api/v1/summaries'],
  },
);
