import { allInOneEnv } from './config.js';
import { runProcess } from '@memstream/runtime';
import { startEmbedded } from './start-embedded.js';

await runProcess('all-in-one', allInOneEnv, process.env, async (ctx) => void (await startEmbedded(ctx)));
