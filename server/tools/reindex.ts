/**
 * `reindex`: queue an index run and answer at once; `status` shows its progress.
 *
 * @module
 */
import { z } from "zod";
import { checkLibrary, defineTool, libraryArg } from "../tool.ts";

const USAGE = `shelfmark reindex [--library NAME] [--full] [--json]`;

/** The `reindex` tool. */
export const reindex = defineTool({
  name: "reindex",
  title: "Re-index",
  readOnly: false,
  waitsForIndex: false,
  description:
    "Queue an index run (changed files; full: every file again) and answer at once; status shows progress.",
  input: {
    library: libraryArg.optional().describe("Library to re-index (default: all)"),
    full: z.boolean().default(false).describe(
      "Extract every file again, changed or not (default: only changes)",
    ),
  },
  output: {
    queued: z.enum(["changes", "full"]),
    libraries: z.array(z.string()),
    after_run_in_progress: z.boolean(),
    state: z.string(),
  },
  run(shelf, a) {
    checkLibrary(shelf, a.library);
    const r = shelf.reindex(a.library, a.full);
    return {
      queued: a.full ? "full" as const : "changes" as const,
      libraries: r.libraries,
      // A run in progress finishes first; the queued one follows it.
      after_run_in_progress: r.after_run_in_progress,
      state: shelf.status.state,
    };
  },
  markdown(r) {
    const what = r.queued === "full" ? "Full re-index" : "Re-index of changed files";
    return `${what} queued for ${r.libraries.join(", ") || "(no library)"}` +
      (r.after_run_in_progress ? ", after the run in progress" : "") +
      ". Progress: status.";
  },
  cli: {
    synopsis: "reindex",
    summary: "index changes now (--full: every file again)",
    usage: USAGE,
    args: () => ({}),
    // At a terminal the run is waited for, with its progress (MCP answers at once).
    async run(term, _pos, args) {
      const shelf = await term.shelf();
      const a = args as { library?: string; full?: boolean };
      checkLibrary(shelf, a.library);
      const names = a.library ? [a.library] : shelf.libraries.map((l) => l.name);
      const p = await term.index(shelf, a.full ? names : undefined);
      return term.flags.json
        ? JSON.stringify({ ...p, libraries: names, full: a.full ?? false }, null, 2)
        : "";
    },
  },
});
