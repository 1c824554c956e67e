import { runCli } from './cli.js';

// kafkajs warns on every new producer that its default partitioner changed in 2.0; memstream has
// only ever used the new one, so the warning is noise in a command-line tool.
process.env['KAFKAJS_NO_PARTITIONER_WARNING'] ??= '1';

// Ctrl-C stops sending but still prints the summary, so the user learns what reached the server.
const interrupted = new AbortController();
process.once('SIGINT', () => interrupted.abort(new Error('interrupted')));

process.exitCode = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr },
  interrupted.signal,
  process.env,
);
