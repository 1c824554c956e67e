import { resolve } from 'node:path';
import { apiDocsOf, registerApi } from '@memstream/api';
import { createAuthenticator } from '@memstream/auth';
import { docsServer } from '../harness/docs-server.js';
import { writeOrCheck } from './generated-files.js';

/**
 * The HTTP APIs' OpenAPI document, built from the same composition (runApi's `all`: every family's
 * writes and reads, with their zod schemas) the embedded mode serves at `/docs/json`, into `openapi.json` at the repository root. `--check`
 * fails when the file on disk is stale (the test suite runs it).
 */
const OUT = resolve(import.meta.dirname, '../openapi.json');

export async function renderOpenApi(): Promise<string> {
  // Documented as deployed (docker-compose and Kubernetes run with authentication on): every
  // operation needs a bearer token or an API key. The key is a placeholder; no request is made.
  const app = docsServer(
    apiDocsOf('all'),
    createAuthenticator({ apiKeys: [{ clientId: 'docs', key: 'placeholder-key-for-docs' }] }),
  );
  // Routes touch their dependencies only when a request arrives, and none will.
  await registerApi(app, 'all', {} as never);
  await app.ready();
  const document = app.swagger();
  await app.close();
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (process.argv[1] === import.meta.filename)
  await writeOrCheck(new Map([[OUT, await renderOpenApi()]]), 'npm run openapi');
