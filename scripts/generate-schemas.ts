import { resolve } from 'node:path';
import { z } from 'zod';
import {
  EXPORT_FORMAT,
  EXPORT_RECORDS,
  EXPORT_VERSION,
  storableJsonSchema,
  TOPICS,
  withStorableText,
} from '@memstream/schemas';
import { writeOrCheck } from './generated-files.js';

/**
 * The public topic contract, and each record of the export format, as JSON Schema, generated from the zod schemas the services validate
 * with, so what producers read is what consumers enforce. `--check` fails when the files on disk
 * are stale (the test suite runs it).
 */
const OUT_DIR = resolve(import.meta.dirname, '../schemas');

/** Where a topic's schema keeps the schema of any storable JSON value. */
const STORABLE_JSON_DEF = '#/$defs/StorableJson';

/** The schema with the rules of jsonProblem added at every depth (see storable-json-schema.ts). */
function storableEverywhere(schema: Record<string, unknown>): Record<string, unknown> {
  const held = withStorableText(schema, true, STORABLE_JSON_DEF);
  held['$defs'] = { ...(held['$defs'] as object | undefined), StorableJson: storableJsonSchema(STORABLE_JSON_DEF) };
  return held;
}

export function renderTopicSchemas(): Map<string, string> {
  const files = new Map<string, string>();
  for (const topic of Object.values(TOPICS)) {
    const generated = z.toJSONSchema(topic.schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
    // A public input's records are held to the rules of an HTTP body (decodeRecord), so its schema says them.
    const schema = topic.publicInput ? storableEverywhere(generated) : generated;
    const doc = {
      $id: `https://memstream.dev/schemas/${topic.name}.schema.json`,
      title: `Events on ${topic.name}`,
      description: `Every record value on ${topic.name} is one JSON object matching this schema. Generated from libs/schemas by scripts/generate-schemas.ts; do not edit.`,
      ...schema,
    };
    files.set(`${topic.name}.schema.json`, `${JSON.stringify(doc, null, 2)}\n`);
  }
  for (const [kind, record] of Object.entries(EXPORT_RECORDS)) {
    // An import holds each line to the same rules (jsonValueError), so the record's schema says them.
    const schema = storableEverywhere(
      z.toJSONSchema(record, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }),
    );
    const doc = {
      $id: `https://memstream.dev/schemas/export.${kind}.schema.json`,
      title: `The ${kind} record of ${EXPORT_FORMAT} version ${EXPORT_VERSION}`,
      description: `One line of an export (docs/export-import.md) whose kind is ${kind}. Generated from libs/schemas by scripts/generate-schemas.ts; do not edit.`,
      ...schema,
    };
    files.set(`export.${kind}.schema.json`, `${JSON.stringify(doc, null, 2)}\n`);
  }
  return files;
}

if (process.argv[1] === import.meta.filename) {
  const files = [...renderTopicSchemas()].map(([name, content]) => [resolve(OUT_DIR, name), content] as const);
  await writeOrCheck(new Map(files), 'npm run schemas');
}
