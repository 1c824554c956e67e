import type { ErrorShape } from '@memstream/http';

/**
 * The 404 of a path no family claims (`/unknown`). ARK's memory service answers it
 * `{"error": "Not found"}` and its own tests compare the text; our `code` and `message` stand
 * beside it. No other family's client meets such a path on purpose: each calls under its own
 * prefixes (`/api/v1`, `/v1`, `/memory`, ARK's), whose 404s stay in that family's shape, and none
 * reads more than the status of a 404 elsewhere.
 */
export const unclaimedNotFound: ErrorShape = (error) => ({
  error: 'Not found',
  code: error.code,
  message: error.message,
});
