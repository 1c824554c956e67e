import { MemstreamClient, type ClientOptions } from '@memstream/client';
import { TEST_JWT_SECRET, userToken } from '../../../harness/credentials.js';

export const AGENT_KEY = 'client-test-agent-key-0123456789';
/** A server with authentication on: people with HS256 tokens, one agent key. */
export const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `client-test:${AGENT_KEY}` };

/** The callers the contracts use: an agent (the API key) and two people (tokens, minted per call). */
export function callers(urls: Pick<ClientOptions, 'baseUrl' | 'gatewayUrl'>) {
  const agent = new MemstreamClient({ ...urls, apiKey: AGENT_KEY, kaosAgent: 'client-test' });
  return {
    agent,
    alice: agent.as({ token: () => userToken('alice') }),
    bob: agent.as({ token: () => userToken('bob') }),
    anonymous: new MemstreamClient(urls),
  };
}
