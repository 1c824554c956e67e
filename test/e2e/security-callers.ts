/**
 * The people and agents of issue 49's attack checks (test/e2e/security.test.ts), as the headers
 * each one sends: four people, an admin (a person with the admin role) and one agent's key.
 */
export interface SecurityCallers {
  readonly alice: Record<string, string>;
  readonly bob: Record<string, string>;
  readonly mallory: Record<string, string>;
  readonly dora: Record<string, string>;
  readonly admin: Record<string, string>;
  readonly agent: Record<string, string>;
}

/** One attack against a running server at `base`; `prefix` starts every id the check makes. */
export type SecurityCheck = (base: string, who: SecurityCallers, prefix: string) => Promise<void>;
