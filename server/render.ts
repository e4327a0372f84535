/**
 * Markdown renderings of the tool answers (compact, for LLMs) and the `[meta]` footer.
 * The CLI prints exactly these, so the two interfaces read the same.
 *
 * @module
 */
import type { Shelf } from "../shelf/shelf.ts";
import type { explore } from "./explore.ts";
import type {
  findPathsTool,
  grep,
  listLibraries,
  outline,
  read,
  search,
  similar,
  status,
} from "./tools.ts";
import { escapeControl } from "./tools.ts";

/** The hint after a list of documents. */
const NEXT_STEP = "Next: outline doc_ids=[...] to see sections with line ranges, then read.";

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** The `_meta` object of every answer. */
export function meta(shelf: Shelf) {
  return {
    now: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    index: {
      state: shelf.status.state,
      vectors: shelf.vectors?.status().state ?? "unavailable",
      stale: shelf.stale,
    },
  };
}

/** The markdown footer: `[meta] now=... index=building stale`. */
export function footer(shelf: Shelf): string {
  const m = meta(shelf);
  let s = `[meta] now=${m.now}`;
  if (m.index.state !== "ready") s += ` index=${m.index.state}`;
  if (m.index.vectors === "pending" || m.index.vectors === "failed") {
    s += ` vectors=${m.index.vectors}`;
  }
  if (m.index.stale) s += " stale";
  return s;
}

const n = (x: number) => x.toLocaleString("en-US");

/** `search` as markdown. */
export function searchMd(r: Answer<typeof search>): string {
  const out: string[] = [];
  const mode = r.note ? ` (${r.note})` : "";
  if (!r.results.length) {
    out.push(`No documents match ${JSON.stringify(r.query)}${mode}.`);
    out.push("Try other words, fewer filters, or find_paths for folder names.");
    return out.join("\n");
  }
  out.push(
    `${r.results.length} documents for ${JSON.stringify(r.query)}, mode ${r.mode_used}${mode}:`,
  );
  out.push(...resultsMd(r.results));
  out.push("");
  out.push(NEXT_STEP);
  return out.join("\n");
}

/** `similar` as markdown: the same cards as search. */
export function similarMd(r: Answer<typeof similar>): string {
  if (!r.results.length) return `No documents are similar to ${r.doc_id}.`;
  return [
    `${r.results.length} documents similar to ${r.doc_id}:`,
    ...resultsMd(r.results),
    "",
    NEXT_STEP,
  ].join("\n");
}

function resultsMd(results: Answer<typeof search>["results"]): string[] {
  const out: string[] = [];
  results.forEach((h, i) => {
    out.push("");
    out.push(`${i + 1}. ${escapeControl(h.title)} [${h.doc_id}]`);
    const parts = [
      escapeControl(h.path),
      h.doc_type,
      `${n(h.word_count)} words`,
      `${n(h.total_lines)} lines`,
      h.has_outline ? `outline ${h.outline_quality}` : "no outline",
      `rel ${h.relevance.toFixed(2)}`,
      h.modified_at.slice(0, 10),
    ];
    out.push(`   ${parts.join(" · ")}`);
    if (h.keywords.length) out.push(`   keywords: ${h.keywords.join(", ")}`);
    if (h.snippet) out.push(`   > ${h.snippet}`);
  });
  return out;
}

/** `outline` as markdown. */
export function outlineMd(r: ReturnType<typeof outline>): string {
  const parts = [...r.markdown];
  if (r.json.missing) parts.push(`Not found: ${r.json.missing.join(", ")}`);
  return parts.join("\n\n");
}

/** `read` as markdown: `42 | text` lines, then `Showing lines 42-65 of 139.` */
export function readMd(r: ReturnType<typeof read>): string {
  if (!r.lines.length) return `${escapeControl(r.title)} [${r.doc_id}] is empty (0 lines).`;
  const w = String(r.lines[r.lines.length - 1]!.n).length;
  const body = r.lines.map((l) => `${String(l.n).padStart(w)} | ${l.text}`);
  const first = r.lines[0]!.n;
  const last = r.lines[r.lines.length - 1]!.n;
  body.push("");
  body.push(
    `Showing lines ${first}-${last} of ${r.total_lines}.` +
      (r.next_offset ? ` Next: read offset=${r.next_offset}.` : ""),
  );
  return body.join("\n");
}

/** `grep` as markdown, like `grep -n` with context. */
export function grepMd(r: Answer<typeof grep>): string {
  const head = `${r.total_matches} matches for /${escapeControl(r.pattern)}/ in ${
    escapeControl(r.title)
  } [${r.doc_id}]`;
  if (!r.matches) return head;
  const out = [head];
  for (const m of r.matches) {
    out.push("--");
    m.before.forEach((t, i) => out.push(`${m.line - m.before.length + i}- ${t}`));
    out.push(`${m.line}: ${m.text}`);
    m.after.forEach((t, i) => out.push(`${m.line + 1 + i}- ${t}`));
  }
  if (r.next_offset !== null) {
    out.push("");
    out.push(
      `Showing ${r.matches.length} from match ${r.offset + 1}. Next: offset=${r.next_offset}.`,
    );
  }
  return out.join("\n");
}

/** `list_libraries` as markdown. */
export function librariesMd(r: ReturnType<typeof listLibraries>): string {
  if (!r.libraries.length) {
    return "No libraries. Add one with `shelfmark libraries add NAME PATH` or start with a folder.";
  }
  return r.libraries.map((l) =>
    `- ${l.name}: ${n(l.document_count)} documents (${l.state})` +
    (l.description ? ` — ${l.description}` : "") + (l.root ? ` [${l.root}]` : "")
  ).join("\n");
}

/** `explore` as markdown. */
export function exploreMd(r: ReturnType<typeof explore>): string {
  const out = [`${r.library ?? "All libraries"}: ${n(r.document_count)} documents`];
  out.push(
    "Types: " + Object.entries(r.doc_types).map(([t, c]) => `${t} ${n(c)}`).join(", "),
  );
  out.push("", "Folders (files, median words):");
  for (const d of r.directories) {
    const depth = d.path.split("/").length - 1;
    out.push(
      `${"  ".repeat(depth)}${d.path.split("/").pop()}/ ${n(d.file_count)} files, ~${
        n(d.median_words)
      } words`,
    );
  }
  if (r.directories.length < r.directories_total) {
    out.push(`  … ${r.directories_total - r.directories.length} deeper folders (use find_paths)`);
  }
  if (r.top_keywords.length) {
    out.push("", "Top keywords (documents; folders):");
    for (const k of r.top_keywords) {
      out.push(`- ${k.keyword} (${k.documents}; ${k.directories.join(", ")})`);
    }
  }
  return out.join("\n");
}

/** `find_paths` as markdown. */
export function findPathsMd(r: ReturnType<typeof findPathsTool>): string {
  if (!r.directories.length) return "No folders match.";
  const out = [
    `${n(r.total_files)} files in ${r.directories.length}${r.truncated ? "+" : ""} folders:`,
  ];
  for (const d of r.directories) out.push(`- ${escapeControl(d.path)}/ (${n(d.file_count)} files)`);
  if (r.truncated) out.push("(more folders; raise limit or use narrower patterns)");
  return out.join("\n");
}

/** `status` as markdown. */
export function statusMd(r: ReturnType<typeof status>): string {
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
  for (const l of r.libraries) out.push(`- ${l.name}: ${n(l.documents)} documents`);
  if (r.skipped_count) {
    out.push(`Skipped ${n(r.skipped_count)} files:`);
    const shown = r.skipped.slice(0, 20);
    for (const s of shown) {
      out.push(`- ${escapeControl(s.path)}: ${s.reason} (${escapeControl(s.message)})`);
    }
    const next = r.skipped_offset + shown.length;
    if (next < r.skipped_count) {
      out.push(
        `  … ${
          n(r.skipped_count - next)
        } more (skipped_offset=${next}; output_format json lists up to skipped_limit)`,
      );
    }
  }
  if (r.last_error) out.push(`Last error: ${r.last_error}`);
  return out.join("\n");
}
