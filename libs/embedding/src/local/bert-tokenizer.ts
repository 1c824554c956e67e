import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

export interface Encoded {
  readonly ids: readonly number[];
  /** The text had more tokens than the model reads; its tail was dropped. */
  readonly truncated: boolean;
}

export interface PaddedBatch {
  readonly inputIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  /** All 0: one text is one segment. */
  readonly tokenTypeIds: BigInt64Array;
  readonly rows: number;
  readonly columns: number;
}

export interface BertTokenizer {
  encode(text: string): Encoded;
}

/**
 * BERT WordPiece from the checkpoint's own tokenizer.json (lower-casing, accent stripping, CJK
 * and punctuation splitting, `[CLS] … [SEP]`), through Hugging Face's JavaScript port of their
 * tokenizers. That port ignores the file's truncation and fixed padding (128, a leftover of
 * training), so both are done here: at most `maxTokens` ids, as sentence-transformers reads at
 * most max_seq_length, keeping `[CLS]`, the first tokens, and `[SEP]`.
 */
export async function loadBertTokenizer(modelDir: string, maxTokens: number): Promise<BertTokenizer> {
  const readJson = async (name: string) => JSON.parse(await readFile(join(modelDir, name), 'utf8')) as object;
  // A WordPiece encoder reads nothing from tokenizer_config.json; a model shipped without one gets none.
  const [json, config] = await Promise.all([
    readJson('tokenizer.json'),
    readJson('tokenizer_config.json').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return {};
      throw err;
    }),
  ]);
  const tokenizer = new Tokenizer(json, config);
  return {
    encode(text) {
      const ids = tokenizer.encode(text).ids;
      if (ids.length <= maxTokens) return { ids, truncated: false };
      return { ids: [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]!], truncated: true };
    },
  };
}

/** Right-pads every row to the longest with id 0 (`[PAD]`), masked out. */
export function padBatch(rows: readonly (readonly number[])[]): PaddedBatch {
  const columns = Math.max(...rows.map((ids) => ids.length));
  const inputIds = new BigInt64Array(rows.length * columns);
  const attentionMask = new BigInt64Array(rows.length * columns);
  rows.forEach((ids, r) => {
    ids.forEach((id, c) => {
      inputIds[r * columns + c] = BigInt(id);
      attentionMask[r * columns + c] = 1n;
    });
  });
  return {
    inputIds,
    attentionMask,
    tokenTypeIds: new BigInt64Array(rows.length * columns),
    rows: rows.length,
    columns,
  };
}
