import type { z } from 'zod';
import { platformEnv, requireAuthOffLoopback } from '@memstream/config';
import { converterSettings } from '@memstream/converter';
import { governanceSettings } from '@memstream/governance';
import { extractorSettings } from '@memstream/extractor';
import { indexerSettings } from '@memstream/indexer';
import { apiSettings } from '@memstream/api';
import { summarizerSettings } from '@memstream/summarizer';

/** The embedded mode runs every service in one process, so it reads every service's settings. */
export const allInOneEnv = platformEnv
  .extend({
    ...apiSettings,
    ...converterSettings,
    ...governanceSettings,
    ...summarizerSettings,
    ...extractorSettings,
    ...indexerSettings,
  })
  .superRefine(requireAuthOffLoopback);
export type AllInOneConfig = z.infer<typeof allInOneEnv>;
