import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { apiDocsOf, registerApi } from '@memstream/api';
import { createAuthenticator } from '@memstream/auth';
import { docsServer } from '../harness/docs-server.js';

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

if (process.argv[1] === import.meta.filename) {
  const content = await renderOpenApi();
  if (process.argv.includes('--check')) {
    const current = await readFile(OUT, 'utf8').catch(() => '');
    if (current !== content) {
      console.error('stale: openapi.json (run npm run openapi)');
      process.exit(1);
    }
  } else {
    await writeFile(OUT, content);
    console.log('wrote openapi.json');
  }
}
