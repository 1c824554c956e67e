import { env } from './load-config.js';

/**
 * What an API process's HTTP edge allows a caller to hold: the hosts it answers to, how long a
 * request body may take, and how many connections and streams one caller may keep open.
 */
export const httpEdgeSettings = {
  /**
   * Host names (or host:port) the API answers to besides loopback ones (localhost, 127.x, [::1]).
   * Without authentication every other Host is refused, so a DNS-rebinding page cannot become
   * same-origin; with authentication, only when this is set (a proxy or Kubernetes service may
   * name the server otherwise).
   */
  PUBLIC_HOSTS: env.list(),
  /** A request body silent this long is abandoned and its connection closed. */
  HTTP_BODY_IDLE_TIMEOUT_MS: env.int(10_000, 50, 3_600_000),
  /** A request body must have arrived whole within this long (the ARK relay's excepted). */
  HTTP_BODY_TIMEOUT_MS: env.int(60_000, 50, 3_600_000),
  /** The idle timeout of a long-lived body instead (ARK's NDJSON relay, which has no total bound). */
  HTTP_STREAM_BODY_IDLE_TIMEOUT_MS: env.int(300_000, 50, 86_400_000),
  /**
   * Open connections from one address; past it a new one is answered 429 and closed. 0: no cap.
   * Unset: 512 without authentication, none with it (behind a proxy every client has its address).
   */
  HTTP_MAX_CONNECTIONS_PER_IP: env.optionalInt(0, 1_000_000),
  /** Server-Sent Event streams one person (the local user: one address) holds open; past it 429. Agents' keys are not counted. */
  SSE_MAX_STREAMS_PER_CALLER: env.int(256, 1, 1_000_000),
};
