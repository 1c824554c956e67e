import { FLOAT, INT64, OnnxGraph } from './onnx-graph.js';
import type { ProtobufMessage } from './protobuf-message.js';
import type { Float32Tensor } from './safetensors.js';

/** The fields of a BERT `config.json` the graph is built from. */
export interface BertConfig {
  readonly hidden_size: number;
  readonly num_hidden_layers: number;
  readonly num_attention_heads: number;
  readonly intermediate_size: number;
  readonly layer_norm_eps: number;
  readonly hidden_act: string;
  readonly position_embedding_type?: string;
}

/** How the large weights are stored (see quantizeColumns). */
export type WeightPrecision = 'float32' | 'int8';

/** Opset 17 is the first with LayerNormalization, which onnxruntime runs as one fused kernel. */
const OPSET = 17;
const IR_VERSION = 8;

/**
 * A BERT encoder followed by sentence-transformers' mean pooling and L2 normalisation, as one
 * ONNX graph: `input_ids` and `attention_mask` (int64, [batch, tokens]) in, `sentence_embedding`
 * (float, [batch, hidden]) out. Pooling lives in the graph so a batch returns batch × 384 floats
 * rather than batch × tokens × 384. Token type ids are always 0 for single texts, so their
 * embedding is a constant row added to every token.
 */
export function buildSentenceEncoder(
  weights: ReadonlyMap<string, Float32Tensor>,
  config: BertConfig,
  precision: WeightPrecision = 'int8',
): ProtobufMessage {
  if (config.hidden_act !== 'gelu')
    throw new Error(`unsupported activation ${config.hidden_act} (the graph implements exact, erf-based gelu)`);
  if ((config.position_embedding_type ?? 'absolute') !== 'absolute')
    throw new Error(`unsupported position embeddings ${config.position_embedding_type}`);
  const hidden = config.hidden_size;
  const heads = config.num_attention_heads;
  const headSize = hidden / heads;
  const g = new OnnxGraph();
  const w = (name: string): Float32Tensor => {
    const tensor = weights.get(name);
    if (!tensor) throw new Error(`checkpoint has no tensor ${name}`);
    return tensor;
  };
  const scalar = (name: string, value: number) => g.constant(name, [], Float32Array.of(value));
  const shape = (name: string, values: number[]) =>
    g.constant(name, [values.length], BigInt64Array.from(values.map(BigInt)));
  const layerNorm = (x: string, prefix: string) =>
    g.node(
      'LayerNormalization',
      [
        x,
        g.constant(`${prefix}.weight`, [hidden], w(`${prefix}.weight`).data),
        g.constant(`${prefix}.bias`, [hidden], w(`${prefix}.bias`).data),
      ],
      {
        axis: { int: -1 },
        epsilon: { float: config.layer_norm_eps },
      },
    );
  // torch's Linear computes x·Wᵀ + b with W stored [out, in]; MatMul wants [in, out], so the
  // weights are transposed once here. `scale` folds a constant factor into weights and bias.
  const linear = (x: string, prefix: string, scale = 1) => {
    const weight = w(`${prefix}.weight`);
    const [outSize, inSize] = weight.shape as [number, number];
    const bias = w(`${prefix}.bias`).data.map((b) => b * scale);
    const transposed = transpose(weight.data, outSize, inSize, scale);
    const product =
      precision === 'int8'
        ? quantizedMatMul(x, prefix, transposed, inSize, outSize)
        : g.node('MatMul', [x, g.constant(`${prefix}.weight_t`, [inSize, outSize], transposed)]);
    return g.node('Add', [product, g.constant(`${prefix}.bias`, [outSize], bias)]);
  };
  // x·W with W in int8, one scale per output column, and x quantized to uint8 per call: the
  // pattern onnxruntime fuses into one DynamicQuantizeMatMul kernel.
  const quantizedMatMul = (x: string, prefix: string, transposed: Float32Array, inSize: number, outSize: number) => {
    const { values, scales } = quantizeColumns(transposed, inSize, outSize);
    const [xq, xScale, xZero] = g.nodeWithOutputs('DynamicQuantizeLinear', [x], 3) as [string, string, string];
    const scale = g.node('Mul', [xScale, g.constant(`${prefix}.weight_scale`, [outSize], scales)]);
    const product = g.node('MatMulInteger', [xq, g.constant(`${prefix}.weight_q`, [inSize, outSize], values), xZero]);
    return g.node('Mul', [g.node('Cast', [product], { to: { int: FLOAT } }), scale]);
  };

  const ids = g.input('input_ids', INT64, ['batch', 'tokens']);
  const mask = g.input('attention_mask', INT64, ['batch', 'tokens']);

  const wordEmbeddings = w('embeddings.word_embeddings.weight');
  const positionEmbeddings = w('embeddings.position_embeddings.weight');
  const words =
    precision === 'int8'
      ? quantizedGather(g, 'embeddings.word_embeddings', wordEmbeddings, ids)
      : g.node('Gather', [g.constant('embeddings.word_embeddings', wordEmbeddings.shape, wordEmbeddings.data), ids]);
  const tokenCount = g.node('Shape', [ids], { start: { int: 1 }, end: { int: 2 } });
  const zero = shape('zero', [0]);
  const axis1 = shape('axis1', [1]);
  const positions = g.node('Slice', [
    g.constant('embeddings.position_embeddings', positionEmbeddings.shape, positionEmbeddings.data),
    zero,
    tokenCount,
    zero,
  ]);
  const tokenType0 = g.constant(
    'embeddings.token_type_0',
    [hidden],
    w('embeddings.token_type_embeddings.weight').data.slice(0, hidden),
  );
  let x = layerNorm(g.node('Add', [g.node('Add', [words, positions]), tokenType0]), 'embeddings.LayerNorm');

  // Padding gets -10000 added to its attention scores: after softmax its weight is exactly 0 in
  // float32, so a text scores the same padded in a batch as alone.
  const one = scalar('one', 1);
  const maskFloat = g.node('Cast', [mask], { to: { int: FLOAT } });
  const maskBias = g.node('Unsqueeze', [
    g.node('Mul', [g.node('Sub', [maskFloat, one]), scalar('mask_penalty', 10_000)]),
    shape('axes12', [1, 2]),
  ]);
  const splitHeads = shape('split_heads', [0, 0, heads, headSize]);
  const joinHeads = shape('join_heads', [0, 0, hidden]);
  const half = scalar('half', 0.5);
  const sqrt2 = scalar('sqrt2', Math.SQRT2);

  for (let i = 0; i < config.num_hidden_layers; i++) {
    const p = `encoder.layer.${i}`;
    const heading = (t: string, perm: number[]) =>
      g.node('Transpose', [g.node('Reshape', [t, splitHeads])], { perm: { ints: perm } });
    // Scaling queries by 1/√d before the product equals scaling the scores after it, for free.
    const q = heading(linear(x, `${p}.attention.self.query`, 1 / Math.sqrt(headSize)), [0, 2, 1, 3]);
    const k = heading(linear(x, `${p}.attention.self.key`), [0, 2, 3, 1]);
    const v = heading(linear(x, `${p}.attention.self.value`), [0, 2, 1, 3]);
    const probs = g.node('Softmax', [g.node('Add', [g.node('MatMul', [q, k]), maskBias])], { axis: { int: -1 } });
    const context = g.node('Reshape', [
      g.node('Transpose', [g.node('MatMul', [probs, v])], { perm: { ints: [0, 2, 1, 3] } }),
      joinHeads,
    ]);
    const attended = layerNorm(
      g.node('Add', [linear(context, `${p}.attention.output.dense`), x]),
      `${p}.attention.output.LayerNorm`,
    );
    const h = linear(attended, `${p}.intermediate.dense`);
    const gelu = g.node('Mul', [
      g.node('Mul', [h, half]),
      g.node('Add', [g.node('Erf', [g.node('Div', [h, sqrt2])]), one]),
    ]);
    x = layerNorm(g.node('Add', [linear(gelu, `${p}.output.dense`), attended]), `${p}.output.LayerNorm`);
  }

  // Mean over real tokens only, then unit length; the clamps are sentence-transformers' own.
  const summed = g.node(
    'ReduceSum',
    [g.node('Mul', [x, g.node('Unsqueeze', [maskFloat, shape('axis2', [2])])]), axis1],
    { keepdims: { int: 0 } },
  );
  const counted = g.node('Max', [
    g.node('ReduceSum', [maskFloat, axis1], { keepdims: { int: 1 } }),
    scalar('min_count', 1e-9),
  ]);
  const mean = g.node('Div', [summed, counted]);
  const norm = g.node('Max', [
    g.node('Sqrt', [g.node('ReduceSumSquare', [mean], { axes: { ints: [1] }, keepdims: { int: 1 } })]),
    scalar('min_norm', 1e-12),
  ]);
  g.node('Div', [mean, norm], {}, 'sentence_embedding');
  g.output('sentence_embedding', FLOAT, ['batch', hidden]);

  return g.toModel({ irVersion: IR_VERSION, opset: OPSET, producer: 'memstream', graphName: 'sentence_encoder' });
}

/**
 * Symmetric int8 per column of a [rows, columns] matrix, in 7 bits (±63): the u8·s8 products of
 * x86's AVX2 kernels (without VNNI) add pairs in 16 bits, and 8-bit weights could saturate them.
 */
const WEIGHT_LEVELS = 63;

function quantizeColumns(
  data: Float32Array,
  rows: number,
  columns: number,
): { values: Int8Array; scales: Float32Array } {
  const scales = new Float32Array(columns);
  for (let i = 0; i < data.length; i++) {
    const c = i % columns;
    scales[c] = Math.max(scales[c]!, Math.abs(data[i]!));
  }
  for (let c = 0; c < columns; c++) scales[c] = scales[c]! > 0 ? scales[c]! / WEIGHT_LEVELS : 1;
  const values = new Int8Array(rows * columns);
  for (let i = 0; i < data.length; i++) values[i] = Math.round(data[i]! / scales[i % columns]!);
  return { values, scales };
}

/** A table looked up by row (the word embeddings), in int8 with one scale per row. */
function quantizedGather(g: OnnxGraph, name: string, table: Float32Tensor, ids: string): string {
  const [rows, columns] = table.shape as [number, number];
  const scales = new Float32Array(rows);
  const values = new Int8Array(rows * columns);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let c = 0; c < columns; c++) max = Math.max(max, Math.abs(table.data[r * columns + c]!));
    const scale = max > 0 ? max / 127 : 1;
    scales[r] = scale;
    for (let c = 0; c < columns; c++) values[r * columns + c] = Math.round(table.data[r * columns + c]! / scale);
  }
  const gathered = g.node('Cast', [g.node('Gather', [g.constant(`${name}_q`, [rows, columns], values), ids])], {
    to: { int: FLOAT },
  });
  return g.node('Mul', [gathered, g.node('Gather', [g.constant(`${name}_scale`, [rows, 1], scales), ids])]);
}

function transpose(data: Float32Array, rows: number, columns: number, scale: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) out[c * rows + r] = data[r * columns + c]! * scale;
  }
  return out;
}
