import { ProtobufMessage } from './protobuf-message.js';

/** TensorProto.DataType values. */
export const FLOAT = 1;
export const INT8 = 3;
export const INT64 = 7;

export type Attribute = { readonly int: number } | { readonly float: number } | { readonly ints: readonly number[] };

/** A dimension is a size, or a name for a size only known at run time ('batch', 'tokens'). */
export type Dimension = number | string;

/**
 * Builds one ONNX model, node by node, straight into its protobuf encoding (the field numbers are
 * those of onnx.proto). Node outputs get generated names; a graph is written in topological
 * order simply by calling `node` in the order the computation runs.
 */
export class OnnxGraph {
  private readonly nodes: ProtobufMessage[] = [];
  private readonly initializers: ProtobufMessage[] = [];
  private readonly inputs: ProtobufMessage[] = [];
  private readonly outputs: ProtobufMessage[] = [];
  private counter = 0;

  input(name: string, elemType: number, dims: readonly Dimension[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: number, dims: readonly Dimension[]): void {
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  /** A constant tensor stored in the model (weights, and the small shapes and scalars ops take). */
  constant(name: string, dims: readonly number[], data: Float32Array | BigInt64Array | Int8Array): string {
    const tensor = new ProtobufMessage();
    for (const d of dims) tensor.varint(1, d);
    tensor.varint(2, data instanceof Float32Array ? FLOAT : data instanceof Int8Array ? INT8 : INT64);
    tensor.string(8, name);
    // raw_data is little-endian, like every machine onnxruntime-node ships for.
    tensor.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    this.initializers.push(tensor);
    return name;
  }

  /** Appends one operator and returns the name of its (single) output, or `name` if given. */
  node(opType: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}, name?: string): string {
    const output = name ?? `${opType.toLowerCase()}_${this.counter++}`;
    this.append(opType, inputs, [output], attributes);
    return output;
  }

  /** Appends an operator with `count` outputs and returns their names. */
  nodeWithOutputs(opType: string, inputs: readonly string[], count: number): string[] {
    const base = `${opType.toLowerCase()}_${this.counter++}`;
    const outputs = Array.from({ length: count }, (_, i) => `${base}_${i}`);
    this.append(opType, inputs, outputs, {});
    return outputs;
  }

  private append(
    opType: string,
    inputs: readonly string[],
    outputs: readonly string[],
    attributes: Record<string, Attribute>,
  ): void {
    const node = new ProtobufMessage();
    for (const input of inputs) node.string(1, input);
    for (const output of outputs) node.string(2, output);
    node.string(3, outputs[0]!);
    node.string(4, opType);
    for (const [key, value] of Object.entries(attributes)) node.message(5, attribute(key, value));
    this.nodes.push(node);
  }

  toModel(options: { irVersion: number; opset: number; producer: string; graphName: string }): ProtobufMessage {
    const graph = new ProtobufMessage();
    for (const node of this.nodes) graph.message(1, node);
    graph.string(2, options.graphName);
    for (const tensor of this.initializers) graph.message(5, tensor);
    for (const input of this.inputs) graph.message(11, input);
    for (const output of this.outputs) graph.message(12, output);
    const opset = new ProtobufMessage().string(1, '').varint(2, options.opset);
    return new ProtobufMessage()
      .varint(1, options.irVersion)
      .string(2, options.producer)
      .message(7, graph)
      .message(8, opset);
  }
}

const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

function attribute(name: string, value: Attribute): ProtobufMessage {
  const out = new ProtobufMessage().string(1, name);
  if ('int' in value) return out.varint(3, value.int).varint(20, ATTRIBUTE_INT);
  if ('float' in value) return out.float(2, value.float).varint(20, ATTRIBUTE_FLOAT);
  for (const i of value.ints) out.varint(8, i);
  return out.varint(20, ATTRIBUTE_INTS);
}

function valueInfo(name: string, elemType: number, dims: readonly Dimension[]): ProtobufMessage {
  const shape = new ProtobufMessage();
  for (const d of dims) {
    shape.message(1, typeof d === 'number' ? new ProtobufMessage().varint(1, d) : new ProtobufMessage().string(2, d));
  }
  const tensorType = new ProtobufMessage().varint(1, elemType).message(2, shape);
  return new ProtobufMessage().string(1, name).message(2, new ProtobufMessage().message(1, tensorType));
}
