import { z } from 'zod';
import { env } from './load-config.js';
import { platformEnv } from './platform-config.js';

/** Settings of the consumer services, on top of the platform's. */
export const converterEnv = platformEnv.extend({
  CONVERTER_GROUP_ID: env.string('memstream-converter'),
  CONVERTER_PARTITIONS_CONCURRENTLY: env.int(4, 1, 1024),
});
export type ConverterConfig = z.infer<typeof converterEnv>;

/** The embedded mode runs every service, so it reads every service's settings. */
export const allInOneEnv = converterEnv;
export type AllInOneConfig = z.infer<typeof allInOneEnv>;
