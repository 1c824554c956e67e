export interface Float32Tensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/**
 * The float32 tensors of a safetensors file: an 8-byte little-endian header length, a JSON header
 * naming each tensor's dtype, shape and byte range, then the raw little-endian data. Tensors of
 * other dtypes (BERT checkpoints carry int64 `position_ids`) are left out.
 */
export function readSafetensors(file: Buffer): Map<string, Float32Tensor> {
  const headerLength = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.toString('utf8', 8, 8 + headerLength)) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const base = 8 + headerLength;
  const tensors = new Map<string, Float32Tensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__' || entry.dtype !== 'F32') continue;
    const [begin, end] = entry.data_offsets;
    const count = entry.shape.reduce((a, b) => a * b, 1);
    if (end - begin !== count * 4)
      throw new Error(`safetensors: ${name} holds ${end - begin} bytes for shape [${entry.shape}]`);
    // Copied out: the data may not be 4-byte aligned inside the file, which a Float32Array view needs.
    const bytes = file.subarray(base + begin, base + end);
    const data = new Float32Array(count);
    new Uint8Array(data.buffer).set(bytes);
    tensors.set(name, { shape: entry.shape, data });
  }
  return tensors;
}
