import type { z } from 'zod';
import {
  authSettings,
  platformEnv,
  requireAuthOffLoopback,
  requireRedisWithKafka,
  writerSettings,
} from '@memstream/config';

/** The ingest gateway's settings beyond the platform's: who may write, and how a write is held. */
export const gatewaySettings = { ...authSettings, ...writerSettings };

export const gatewayEnv = platformEnv
  .extend(gatewaySettings)
  .superRefine(requireRedisWithKafka)
  .superRefine(requireAuthOffLoopback);
export type GatewayConfig = z.infer<typeof gatewayEnv>;
