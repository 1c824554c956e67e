import kafkajs from 'kafkajs';
import SnappyCodec from 'kafkajs-snappy';
import * as lz4 from 'lz4js';
import * as zstd from 'fzstd';
import { checkedRecords, markUndecodable } from './undecodable-batch.js';

/** What kafkajs asks of a codec: `compress` gets its encoder, `decompress` a batch's records part. */
interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

// kafkajs is CommonJS and these two are not among the names Node finds for an ES import
const { CompressionCodecs, CompressionTypes } = kafkajs;
const snappy = SnappyCodec();

/**
 * Every codec a Kafka producer may use (kafkajs itself reads only gzip). All pure JavaScript, so
 * `npm ci` builds nothing and fetches no binary. Only reading matters: the bus never compresses.
 */
const CODECS: Record<number, { name: string; codec: Codec }> = {
  [CompressionTypes.GZIP]: { name: 'gzip', codec: CompressionCodecs[CompressionTypes.GZIP]() as Codec },
  [CompressionTypes.Snappy]: { name: 'snappy', codec: snappy },
  [CompressionTypes.LZ4]: {
    name: 'lz4',
    codec: {
      compress: async (encoder) => Buffer.from(lz4.compress(encoder.buffer)),
      decompress: async (buffer) => toBuffer(lz4.decompress(buffer)),
    },
  },
  [CompressionTypes.ZSTD]: {
    name: 'zstd',
    codec: {
      compress: async () => {
        throw new Error('the bus reads zstd batches but does not write them');
      },
      decompress: async (buffer) => toBuffer(zstd.decompress(buffer)),
    },
  },
};

let registered = false;

/**
 * Registers the codecs in kafkajs's process-wide table, once. A batch one of them cannot decode
 * does not fail the fetch, which would stop every partition the fetch carried (and kafkajs would
 * fetch it again and again): it is decoded as stand-in records that park its partition
 * (see undecodable-batch.ts).
 */
export function registerKafkaCodecs(): void {
  if (registered) return;
  registered = true;
  const table = CompressionCodecs as Record<number, () => Codec>;
  for (const [type, { name, codec }] of Object.entries(CODECS)) {
    const parking: Codec = {
      compress: (encoder) => codec.compress(encoder),
      decompress: async (buffer) => {
        let decompressed: Buffer;
        try {
          decompressed = await codec.decompress(buffer);
        } catch (err) {
          return markUndecodable(buffer, Number(type), name, err);
        }
        return checkedRecords(decompressed, buffer, Number(type), name);
      },
    };
    table[Number(type)] = () => parking;
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
