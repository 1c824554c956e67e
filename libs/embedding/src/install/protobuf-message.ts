const VARINT = 0;
const FIXED32 = 5;
const LENGTH_DELIMITED = 2;

/**
 * A protobuf message being written: fields are appended as encoded parts, never copied into one
 * buffer until the end, so a model's 90 MB of weights is copied once however deep it is nested.
 * Only the wire types ONNX needs: varints, fixed32 floats, and length-delimited bytes/messages.
 */
export class ProtobufMessage {
  readonly parts: Uint8Array[] = [];
  length = 0;

  /** int32, int64 and enums; negative values take ten bytes, as protobuf's int64 encoding has it. */
  varint(field: number, value: number | bigint): this {
    this.push(tag(field, VARINT));
    return this.push(varint(BigInt.asUintN(64, BigInt(value))));
  }

  float(field: number, value: number): this {
    const bytes = Buffer.alloc(4);
    bytes.writeFloatLE(value);
    this.push(tag(field, FIXED32));
    return this.push(bytes);
  }

  bytes(field: number, value: Uint8Array): this {
    this.push(tag(field, LENGTH_DELIMITED));
    this.push(varint(BigInt(value.length)));
    return this.push(value);
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, value: ProtobufMessage): this {
    this.push(tag(field, LENGTH_DELIMITED));
    this.push(varint(BigInt(value.length)));
    for (const part of value.parts) this.push(part);
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts, this.length);
  }

  private push(part: Uint8Array): this {
    this.parts.push(part);
    this.length += part.length;
    return this;
  }
}

function tag(field: number, wireType: number): Uint8Array {
  return varint(BigInt((field << 3) | wireType));
}

function varint(value: bigint): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return Uint8Array.from(out);
}
