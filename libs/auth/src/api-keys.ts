import { createHash, timingSafeEqual } from 'node:crypto';

export interface ApiKey {
  readonly clientId: string;
  readonly key: string;
}

/**
 * The configured agent keys, looked up without revealing through timing which key, or how much of
 * one, matched: every candidate is hashed to the same length and every configured key is compared,
 * whatever the outcome of the earlier comparisons.
 */
export class ApiKeyRing {
  readonly #entries: readonly { clientId: string; digest: Buffer }[];

  constructor(keys: readonly ApiKey[]) {
    this.#entries = keys.map((k) => ({ clientId: k.clientId, digest: digestOf(k.key) }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The client id the key belongs to, or undefined. */
  clientOf(candidate: string): string | undefined {
    const digest = digestOf(candidate);
    let found: string | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.clientId;
    }
    return found;
  }
}

function digestOf(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
