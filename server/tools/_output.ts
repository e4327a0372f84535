/**
 * Pieces of the tools' output schemas (the `outputSchema` of `serve --structured`): the
 * shapes several answers share. Objects are loose (a field added later does not break a
 * client that validates), and a field an answer may leave out is optional.
 *
 * @module
 */
import { z } from "zod";

/** A loose object of the given shape. */
export const obj = <S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$loose> =>
  z.looseObject(shape);

/** A string that may be absent. */
export const optString: z.ZodOptional<z.ZodString> = z.string().optional();
/** A string that may be absent or null. */
export const maybeString: z.ZodOptional<z.ZodNullable<z.ZodString>> = z.string().nullable()
  .optional();
/** A whole number that may be absent. */
export const optInt: z.ZodOptional<z.ZodNumber> = z.number().int().optional();
/** A next offset: a number, or null (or absent) when there is no more. */
export const nextOffset: z.ZodOptional<z.ZodNullable<z.ZodNumber>> = z.number().int().nullable()
  .optional();
/** A library name, or null for every library. */
export const libraryOrAll: z.ZodOptional<z.ZodNullable<z.ZodString>> = z.string().nullable()
  .optional();

/** A document named in an answer: id, path and title. */
export const docRef = obj({ doc_id: z.string(), path: z.string(), title: optString });

/** A document in a listing (browse, recent, find_documents). */
export const docEntry = obj({
  doc_id: z.string(),
  path: z.string(),
  title: z.string(),
  doc_type: z.string(),
  total_lines: z.number().int(),
  size: z.number().int(),
  modified_at: z.string(),
});

/** A passage of a hit: where it is and its snippet. */
export const passage = obj({
  node_id: optString,
  title: optString,
  start_line: z.number().int(),
  end_line: z.number().int(),
  page: optInt,
  line: optInt,
  snippet: optString,
});

/** A search hit (search, similar). */
export const hit = obj({
  doc_id: z.string(),
  title: z.string(),
  path: z.string(),
  library: z.string(),
  doc_type: z.string(),
  relevance: z.number(),
  total_lines: z.number().int(),
  word_count: z.number().int(),
  modified_at: optString,
  keywords: z.array(z.string()).optional(),
  snippet: optString,
  answer: obj({
    text: z.string(),
    line: z.number().int(),
    page: optInt,
    start_line: optInt,
    end_line: optInt,
  }).optional(),
  passages: z.array(passage).optional(),
  copies: z.array(obj({ doc_id: z.string(), path: z.string() })).optional(),
});

/** A link of `links`/`context`: target as written, where it resolves, and where it stands. */
export const linkItem = obj({
  target: maybeString,
  kind: maybeString,
  doc_id: maybeString,
  path: maybeString,
  exists: z.boolean().nullable().optional(),
  text: maybeString,
  line: optInt,
  count: optInt,
});

/** A page of links: total, items, and the next offset. */
export const linkPage = obj({
  total: z.number().int(),
  items: z.array(linkItem),
  next_offset: nextOffset,
});

/** The `_meta` object every answer carries. */
export const metaOut = obj({
  now: z.string(),
  index: obj({ state: z.string(), vectors: z.string(), stale: z.boolean() }),
});

/** A grep match: its line (and last line, when it wraps), its page, text and the context lines not already shown. */
export const grepMatch = obj({
  line: z.number().int(),
  end_line: optInt,
  page: optInt,
  text: z.string(),
  before: z.array(z.string()).optional(),
  after: z.array(z.string()).optional(),
});
