/**
 * The tools' JSON Schemas, generated from the core's zod schemas (so they cannot drift) and made
 * to say what MCP returns (contract §10):
 * - output = the core's body plus `meta` (result.ts), as zod schemas here;
 * - timestamps are ISO 8601 strings on MCP: every field named in TIMESTAMP_FIELDS (iso-times.ts,
 *   the same list that converts the values) becomes `string`, `format: date-time`, while the
 *   core's and REST's zod records keep Unix seconds;
 * - lean: each record is defined once per schema in `$defs` and referenced, integers carry no
 *   safe-integer bounds, and an output object is closed (`additionalProperties: false`) only
 *   where the core's schema is strict (the payload envelope: exactly its keys).
 */
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/server';
import {
  articleDetailSchema,
  articleRecordSchema,
  contactDetailSchema,
  contactRecordSchema,
  conversationRecordSchema,
  conversationTranscriptSchema,
  envelopeSchemas,
  messageRecordSchema,
  transcriptMessageSchema,
} from '../search/records.js';
import { MAX_UNIX_SECONDS } from '../search/times.js';
import { accountDirectorySchema, conversationListSchema } from '../search/triage-records.js';
import { TIMESTAMP_FIELDS } from './iso-times.js';

const count = z.number().int();

/** The `meta` keys of every tool result (result.ts ToolMeta). */
const commonMeta = {
  next: z.record(z.string(), z.unknown()).nullable(),
  truncated: z.boolean(),
  now: z.string(),
  notices: z.array(z.string()),
};

/** `meta` of a paged result: a search, a contact's conversations. */
const pagedMeta = {
  page: count,
  per_page: count,
  has_more: z.record(z.string(), z.unknown()),
  ...commonMeta,
};

/** `engine` only where messages were searched: which engine answered them (the rest is always Postgres). */
const withSearchMeta = <S extends z.ZodObject>(envelope: S, engine = false) =>
  envelope.extend({ meta: z.object(engine ? { ...pagedMeta, engine: z.string() } : pagedMeta) });

/** What each tool's `structuredContent` is, as a zod schema (the JSON Schema is generated from it). */
export const outputSchemas = {
  all: withSearchMeta(envelopeSchemas.all, true),
  contacts: withSearchMeta(envelopeSchemas.contacts),
  conversations: withSearchMeta(envelopeSchemas.conversations),
  messages: withSearchMeta(envelopeSchemas.messages, true),
  articles: withSearchMeta(envelopeSchemas.articles),
  get_conversation: conversationTranscriptSchema.extend({
    meta: conversationTranscriptSchema.shape.meta.extend({ per_page: count, ...commonMeta }),
  }),
  get_contact: contactDetailSchema.extend({ meta: z.object(pagedMeta) }),
  get_article: articleDetailSchema.extend({ meta: z.object(commonMeta) }),
  // The help desk's `{data: {meta: counts, payload}}` as MCP's `{payload, meta}` (call.ts bodyOf).
  list_conversations: z.object({
    payload: z.object({
      conversations: conversationListSchema.shape.data.shape.payload,
      counts: conversationListSchema.shape.data.shape.meta,
    }),
    meta: z.object(pagedMeta),
  }),
  get_account: accountDirectorySchema.extend({ meta: z.object(commonMeta) }),
} as const;

/** Records defined once per output schema (`$defs`), by the id they have there. */
const RECORDS = z.registry<{ id: string }>();
RECORDS.add(contactRecordSchema, { id: 'contact' });
RECORDS.add(conversationRecordSchema, { id: 'conversation' });
RECORDS.add(messageRecordSchema, { id: 'message' });
RECORDS.add(articleRecordSchema, { id: 'article' });
RECORDS.add(transcriptMessageSchema, { id: 'transcript_message' });

type Json = Record<string, unknown>;

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A timestamp field as MCP writes it: ISO 8601 UTC text, `null` where the core allows it. */
function isoField(field: unknown, format: boolean): Json {
  const nullable = JSON.stringify(field).includes('"null"');
  return { type: nullable ? ['string', 'null'] : 'string', ...(format && { format: 'date-time' }) };
}

/**
 * Drops what says little to a client (safe-integer bounds, which fields of a nested record are
 * required: every one is, and always present) and swaps timestamps to their MCP form, in place.
 */
function tidy(node: unknown, top = true): void {
  if (Array.isArray(node)) return node.forEach((n) => tidy(n, false));
  if (!isJson(node)) return;
  Object.values(node).forEach((n) => tidy(n, false));
  if (!top) delete node.required;
  if (node.type === 'integer' && node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (node.type === 'integer' && node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  if (isJson(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) delete node.additionalProperties;
  nullableType(node);
  if (isJson(node.properties)) {
    for (const key of Object.keys(node.properties))
      // `format` once per tool, on meta.now: a record's times are the same form (instructions, descriptions).
      if (TIMESTAMP_FIELDS.has(key) || key === 'now') node.properties[key] = isoField(node.properties[key], key === 'now');
  }
}

/** `anyOf: [{type: T}, {type: 'null'}]` written as `type: [T, 'null']`, in place. */
function nullableType(node: Json): void {
  const variants = node.anyOf;
  if (!Array.isArray(variants) || variants.length !== 2) return;
  const [value, none] = variants as Json[];
  if (!isJson(none) || none.type !== 'null' || Object.keys(none).length !== 1) return;
  if (
    !isJson(value) ||
    typeof value.type !== 'string' ||
    Object.keys(value).some((k) => k !== 'type' && k !== 'additionalProperties' && k !== 'enum')
  )
    return;
  delete node.anyOf;
  node.type = [value.type, 'null'];
  if (Array.isArray(value.enum)) node.enum = [...(value.enum as unknown[]), null];
}

/** An object field of a record (`meta.sender`, a message's `sender`): its type, not its fields (the data shows them). */
function shallow(field: Json): Json {
  const variants = Array.isArray(field.anyOf) ? (field.anyOf as Json[]) : [field];
  if (!variants.some((v) => isJson(v.properties))) return field;
  const types = variants.map((v) => v.type as string);
  return types.length === 1 ? { type: types[0] } : { type: types };
}

/** A list of records inside a record (a conversation's latest message): an array; its record is defined where a tool lists it. */
function shallowList(field: Json): Json {
  const items = field.items;
  if (field.type !== 'array' || !isJson(items) || typeof items.$ref !== 'string') return field;
  const list: Json = { ...field };
  delete list.items;
  return list;
}

/** Each record of `$defs` with its object fields and record lists written shallow, in place. */
function shallowRecords(defs: unknown): void {
  if (!isJson(defs)) return;
  for (const record of Object.values(defs)) {
    if (!isJson(record) || !isJson(record.properties)) continue;
    for (const [key, field] of Object.entries(record.properties))
      if (isJson(field)) record.properties[key] = shallowList(shallow(field));
  }
}

/** Drops the `$defs` that no `$ref` of the schema reaches any more (after shallowRecords), in place. */
function pruneDefs(schema: Json): void {
  const defs = schema.$defs;
  if (!isJson(defs)) return;
  const refers = (node: unknown, name: string) => JSON.stringify(node).includes(`"#/$defs/${name}"`);
  const reached = new Set<string>();
  let frontier: unknown[] = [{ ...schema, $defs: undefined }];
  while (frontier.length > 0) {
    const found = Object.keys(defs).filter((name) => !reached.has(name) && frontier.some((node) => refers(node, name)));
    found.forEach((name) => reached.add(name));
    frontier = found.map((name) => defs[name]);
  }
  for (const name of Object.keys(defs)) if (!reached.has(name)) delete defs[name];
}

/**
 * Input integers without the safe-integer or Postgres bounds, and `since`/`until` (an integer or
 * an ISO text) as a list of types: the server checks every bound, with its message.
 */
function tidyInput(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(tidyInput);
  if (!isJson(node)) return;
  if (node.type === 'integer' && (node.maximum === Number.MAX_SAFE_INTEGER || node.maximum === MAX_UNIX_SECONDS))
    delete node.maximum;
  const variants = node.anyOf;
  if (Array.isArray(variants) && variants.every((v) => isJson(v) && typeof v.type === 'string')) {
    delete node.anyOf;
    node.type = (variants as Json[]).map((v) => v.type);
  }
  Object.values(node).forEach(tidyInput);
}

/** An object schema the core leaves open (`z.object`, not `z.strictObject`). */
const isOpenObject = (schema: unknown) => {
  const def = (schema as { _zod?: { def?: { type?: string; catchall?: unknown } } })._zod?.def;
  return def?.type === 'object' && def.catchall === undefined;
};

/** zod → JSON Schema (draft 2020-12, MCP's default dialect) without `$schema`; outputs lean as above. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const generated: Json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    ...(io === 'output' && {
      metadata: RECORDS,
      override: (ctx) => {
        if (isOpenObject(ctx.zodSchema)) delete ctx.jsonSchema.additionalProperties;
        if (ctx.jsonSchema.propertyNames !== undefined && ctx.jsonSchema.type === 'object') delete ctx.jsonSchema.propertyNames;
      },
    }),
  });
  delete generated.$schema;
  if (io === 'input') tidyInput(generated);
  if (io === 'output') {
    tidy(generated);
    shallowRecords(generated.$defs);
    pruneDefs(generated);
  }
  return generated as Tool['inputSchema'];
}
