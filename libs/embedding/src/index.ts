// Stand-in until branch local-embedder lands: the hash provider only.
import { createHash } from 'node:crypto';
import type { EmbeddingSettings } from '@memstream/config';
import type { Logger } from '@memstream/logging';

export type EmbeddingPurpose = 'query' | 'document';
export interface Embedder {
  readonly model: string;
  readonly dimension: number;
  embed(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export async function createEmbedder(settings: EmbeddingSettings, _log: Logger): Promise<Embedder> {
  const dim = settings.EMBEDDING_DIMENSIONS ?? 256;
  return {
    model: `hash/${dim}`,
    dimension: dim,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(dim);
        for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
          const h = createHash('md5').update(w).digest();
          v[h.readUInt32LE(0) % dim]! += h[4]! & 1 ? 1 : -1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
    async close() {},
  };
}
