import { z } from 'zod';
import type { ErrorShape } from '@memstream/http';

/** ARK's memory services answer errors as a small JSON object with the reason. */
export const arkErrorShape: ErrorShape = (error) => ({ error: error.message, code: error.code });

/** The body arkErrorShape writes, for the API documentation. */
export const ArkErrorBody = z.object({
  error: z.string().meta({ description: 'What was wrong, naming the field' }),
  code: z.string().meta({ description: 'INVALID_PARAMETER, RESOURCE_NOT_FOUND, PAYLOAD_TOO_LARGE, SYSTEM_ERROR, ...' }),
});
