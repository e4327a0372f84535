/**
 * `list_tags`: the distinct values of an indexed front-matter field (default `tags`) with
 * the number of documents holding each, most used first (values folded as filters match
 * them, see `core/fields.ts`).
 *
 * @module
 */
import { z } from "zod";
import { foldField } from "../../core/fields.ts";
import {
  argNames,
  checkStoreFields,
  checkStoreLibrary,
  defineTool,
  escapeControl,
  libraryArg,
  n,
} from "../tool.ts";
import { count } from "./_listing.ts";
import { libraryOrAll, obj } from "./_output.ts";

const USAGE = `shelfmark list-tags [FIELD] [--library NAME] [--limit 100] [--json]`;

/** The `list_tags` tool. */
export const listTags = defineTool({
  name: "list_tags",
  title: "List tags",
  description:
    "Distinct values of a front-matter field (tags, aliases, type, status, author...) with document counts, most used first; for search filters.",
  input: {
    field: z.string().min(1).max(64).default("tags").describe("Front-matter field"),
    library: libraryArg.optional(),
    limit: z.number().int().min(1).max(1000).default(100),
  },
  output: {
    field: z.string(),
    library: libraryOrAll,
    total: z.number().int(),
    values: z.array(obj({ value: z.string(), documents: z.number().int() })),
  },
  async run(shelf, a) {
    await checkStoreLibrary(shelf, a.library);
    await checkStoreFields(shelf, a.library, [a.field]);
    const field = foldField(a.field);
    const { values, total } = await shelf.tagValues(field, a.library, a.limit);
    return { field, library: a.library ?? null, total, values };
  },
  markdown(r, render) {
    const where = r.library ? ` in ${escapeControl(r.library)}` : "";
    if (!r.values.length) return `No document has a value for ${r.field}${where}.`;
    const more = r.total > r.values.length
      ? ` (top ${n(r.values.length)}; raise ${argNames(render, "limit")})`
      : "";
    return [
      `${count(r.total, "value")} of ${r.field}${where}, documents each${more}:`,
      r.values.map((v) => `${escapeControl(v.value)} (${n(v.documents)})`).join(" · "),
    ].join("\n");
  },
  cli: {
    synopsis: "list-tags [FIELD]",
    summary: "values of a front-matter field, with counts",
    usage: USAGE,
    positional: ["field"],
    short: { n: "limit" },
    args: (pos) => ({ field: pos[0] }),
  },
});
