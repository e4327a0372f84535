/**
 * `status`: indexing progress, document counts, vectors, OCR of scanned pages and images, and the
 * files skipped with their reasons (a page at a time: `offset_skipped`, `limit_skipped`).
 *
 * @module
 */
import { z } from "zod";
import { argHint, defineTool, escapeControl, n } from "../tool.ts";
import { nextOffset, obj } from "./_output.ts";
import { count } from "./_listing.ts";
import { allowanceAfter, MAX_ATTEMPTS } from "../../shelf/indexer.ts";

/** The most time a cut document is given (a multiple of the per-file limit). */
const maxAllowance = allowanceAfter(MAX_ATTEMPTS - 1);

/** Documents extracted in part that status names (it counts them all). */
const PARTIAL_SHOWN = 5;

/** The `status` tool. */
export const status = defineTool({
  name: "status",
  title: "Index status",
  waitsForIndex: false,
  description:
    "Indexing progress, document counts, vector state, OCR of scanned pages and images, and files " +
    "skipped with their reasons.",
  input: {
    offset_skipped: z.number().int().min(0).default(0).describe("Skipped files to pass over"),
    limit_skipped: z.number().int().min(0).max(1000).default(100).describe(
      "Skipped files to list (max 1000)",
    ),
  },
  output: {
    state: z.string(),
    documents_indexed: z.number().int(),
    documents_total: z.number().int(),
    search_mode: obj({ default: z.string(), why: z.string() }),
    keyword_index: z.string(),
    vectors: obj({ state: z.string(), model: z.string().nullable().optional() }),
    ocr: obj({ state: z.string() }),
    libraries: z.array(obj({ name: z.string(), documents: z.number().int() })),
    skipped_count: z.number().int(),
    skipped: z.array(obj({ path: z.string(), reason: z.string() })),
    next_offset_skipped: nextOffset,
    partial_count: z.number().int(),
    partial: z.array(
      obj({
        path: z.string(),
        partial: z.string(),
        warnings: z.array(z.string()),
        retry: z.boolean(),
        stopped: z.string().optional(),
      }),
    ),
  },
  async run(shelf, a) {
    const s = shelf.status;
    // another machine's libraries of a shared store, and the files its runs left out: after
    // the own ones
    const [others, theirs] = await Promise.all([shelf.otherLibraries(), shelf.otherRunFiles()]);
    const skipped = [...shelf.skippedFiles(), ...theirs.skipped];
    const partial = shelf.partialDocuments(PARTIAL_SHOWN);
    // the store's counts, all of them at once (with PostgreSQL: in parallel on its pool)
    const names = [...shelf.libraries.map((l) => l.name), ...others];
    const [indexed, ...counts] = await Promise.all([
      shelf.documentCount(),
      ...names.map((name) => shelf.documentCount(name)),
    ]);
    return {
      state: s.state,
      documents_indexed: indexed,
      documents_total: s.state === "building" ? s.progress.total : indexed + skipped.length,
      progress: s.state === "building"
        ? { done: s.progress.done, total: s.progress.total, current: s.progress.current }
        : undefined,
      search_mode: (({ mode, why }) => ({ default: mode, why }))(shelf.defaultSearchMode()),
      keyword_index: shelf.keywordStore(),
      vectors: shelf.vectorStatus() ??
        { state: "unavailable" as const, model: null, note: "no embedder configured" },
      ocr: shelf.ocrStatus() ??
        { state: "off" as const, note: "ocr.pdf_pages and ocr.images are false" },
      libraries: names.map((name, i) => ({ name, documents: counts[i]! })),
      skipped_count: skipped.length,
      offset_skipped: a.offset_skipped,
      skipped: skipped.slice(a.offset_skipped, a.offset_skipped + a.limit_skipped),
      next_offset_skipped: a.offset_skipped + a.limit_skipped < skipped.length
        ? a.offset_skipped + a.limit_skipped
        : null,
      // Documents the time limit cut short: a few of them, with where each stopped.
      partial_count: partial.count + theirs.partial.length,
      partial: [...partial.first, ...theirs.partial].slice(0, PARTIAL_SHOWN),
      started_at: s.started_at,
      finished_at: s.finished_at,
      last_error: s.last_error,
      data_dir: shelf.fullPaths ? shelf.data : undefined,
    };
  },
  markdown(r, render) {
    const out = [
      `Index: ${r.state}, ${n(r.documents_indexed)} of ${n(r.documents_total)} documents indexed`,
    ];
    if (r.progress) {
      out.push(
        `Progress: ${n(r.progress.done)}/${n(r.progress.total)} files` +
          (r.progress.current ? ` (now: ${r.progress.current})` : ""),
      );
    }
    const v = r.vectors;
    out.push(
      "note" in v
        ? `Vectors: ${v.state} (${v.note})`
        : `Vectors: ${v.state}, ${n(v.embedded)} embedded, ${
          n(v.pending)
        } pending, model ${v.model} (${v.dimensions} dimensions, ${
          v.multilingual ? "multilingual" : "English only"
        })` + (v.rate ? `, ${v.rate.toFixed(1)} docs/s` : "") +
          (v.error ? `; last error: ${v.error}` : ""),
    );
    const o = r.ocr;
    out.push(
      "note" in o
        ? `OCR of scanned pages and images: ${o.state} (${o.note})`
        : `OCR of scanned pages and images: ${o.state}, ${count(o.pages_done, "page")} read, ${
          n(o.pages_waiting)
        } waiting` + (o.pages_failed ? `, ${n(o.pages_failed)} failed` : "") +
          (o.rate ? `, ${o.rate.toFixed(2)} pages/s` : "") +
          (o.error && (o.pages_failed || o.pages_waiting) ? `; last error: ${o.error}` : ""),
    );
    out.push(`Search: ${r.search_mode.default} by default (${r.search_mode.why})`);
    out.push(`Keyword index: ${r.keyword_index}`);
    for (const l of r.libraries) out.push(`- ${l.name}: ${count(l.documents, "document")}`);
    if (r.skipped_count) {
      out.push(`Skipped ${count(r.skipped_count, "file")}:`);
      const shown = r.skipped.slice(0, 20);
      for (const s of shown) {
        out.push(`- ${escapeControl(s.path)}: ${s.reason} (${escapeControl(s.message)})`);
      }
      const next = r.offset_skipped + shown.length;
      if (next < r.skipped_count) {
        out.push(
          `  … ${n(r.skipped_count - next)} more (${argHint(render, { offset_skipped: next })}; ${
            render.cli ? "--json" : "output_format json"
          } lists up to ${render.cli ? "--limit-skipped" : "limit_skipped"})`,
        );
      }
    }
    if (r.partial_count) {
      out.push(
        `Extracted in part (time limit) ${count(r.partial_count, "document")}, extracted ` +
          `again with more time by the next index runs, up to ${maxAllowance}x the time limit:`,
      );
      for (const d of r.partial) {
        // A retry stopped by the hard limit says itself whether another follows.
        const again = d.stopped
          ? `; its retry with more time was stopped: ${escapeControl(d.stopped)}`
          : d.retry
          ? ""
          : ` (cut at ${maxAllowance}x the time: not again until the file changes)`;
        out.push(
          `- ${escapeControl(d.path)}: ${
            escapeControl(d.warnings.join("; ") || d.partial)
          }${again}`,
        );
      }
      if (r.partial_count > r.partial.length) {
        out.push(`  … ${n(r.partial_count - r.partial.length)} more`);
      }
    }
    if (r.last_error) out.push(`Last error: ${r.last_error}`);
    return out.join("\n");
  },
  aliases: { skipped_offset: "offset_skipped", skipped_limit: "limit_skipped" },
  cli: {
    synopsis: "status",
    summary: "index state, vectors and skipped files",
    usage: `shelfmark status [--offset-skipped 0] [--limit-skipped 100] [--json]`,
    aliases: { "skipped-offset": "offset-skipped", "skipped-limit": "limit-skipped" },
    args: () => ({}),
  },
});
