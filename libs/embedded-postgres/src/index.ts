// The embedded mode's own PostgreSQL: installed at `npm ci` (scripts/install-postgres.ts), started,
// supervised and stopped by the process that runs it. Only the embedded mode uses it.
export { installPostgres, installedPostgres, resolvePostgresDir, postgresPin } from './binaries.js';
export {
  backgroundStoreOf,
  embeddedPostgresOf,
  openEmbeddedPostgresStore,
  type EmbeddedPostgresSettings,
  type EmbeddedStoreOptions,
} from './embedded-store.js';
export { embeddedPostgresUrl } from './postgres-server.js';
