import { inCauseChain } from './cause-chain.js';

/**
 * True when a failure says a dependency (PostgreSQL, Kafka, Redis, a model server) could not be
 * reached or went away, rather than that this work is wrong. Such work must never be given up
 * on: a consumer waits for the dependency and tries again, however long the outage lasts, where a
 * failure of the work itself is retried a few times and then dead-lettered. Looks through `cause`
 * chains, since drivers and our own AppError wrap what the network said.
 */
export function isUnavailable(err: unknown): boolean {
  return inCauseChain(
    err,
    (e) =>
      e.code === 'DEPENDENCY_UNAVAILABLE' ||
      (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || POSTGRES_GONE.test(e.code))) ||
      (typeof e.name === 'string' && KAFKA_UNREACHABLE.has(e.name)) ||
      (typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message)),
  );
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'ENETUNREACH',
]);
// SQLSTATE 08: connection exceptions; 57P01-57P03: the server is shutting down, crashed, or not yet accepting; 53300: too many connections.
// 25006 (read-only transaction) on a write: the server reached is a standby, because a failover
// demoted the node this connection (or the proxy in front) still points at. The primary is
// elsewhere by the next try, so the write waits like any outage instead of failing for good.
const POSTGRES_GONE = /^(08[0-9A-Z]{3}|57P0[123]|53300|25006)$/;
const KAFKA_UNREACHABLE = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSNumberOfRetriesExceeded',
]);
// What pg and ioredis say, without a code, when the server goes away under a query (pg's
// "Query read timeout": no answer within its query_timeout, see PgStore).
const DRIVER_MESSAGES =
  /Connection terminated|terminating connection|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|MaxRetriesPerRequest|Query read timeout/;
