/**
 * `sync`: pull a git library with rebase, then push; conflicts kept both ways.
 *
 * @module
 */
import { z } from "zod";
import { gitListed } from "./_git.ts";
import { defineTool, escapeControl, libraryArg, shownPath, shownPaths } from "../tool.ts";
import { count } from "./_listing.ts";
import { obj } from "./_output.ts";

const USAGE = `shelfmark sync [--library NAME] [--dry-run] [--json]`;

/** The `sync` tool. */
export const sync = defineTool({
  name: "sync",
  title: "Git sync",
  readOnly: false,
  // A write: hidden and refused unless writing is on (and, over HTTP, there is a token).
  vault: true,
  waitsForIndex: false,
  listed: gitListed,
  description:
    "Pull a git library (rebasing local commits), then push; a conflict keeps the remote file and the local one as NAME.conflict-<time>.EXT.",
  input: {
    library: libraryArg.optional().describe("Git library (default: the only writable one)"),
    dry_run: z.boolean().default(false).describe("Fetch and report only; change nothing"),
  },
  output: {
    library: z.string(),
    branch: z.string(),
    upstream: z.string(),
    ahead: z.number().int(),
    behind: z.number().int(),
    action: z.string(),
    dry_run: z.boolean(),
    pushed: z.boolean(),
    changed: z.array(z.string()),
    conflicts: z.array(obj({ path: z.string(), local_copy: z.string().nullable() })),
    reindexed: z.number().int(),
  },
  async run(shelf, a) {
    const r = await shelf.sync(a.library, a.dry_run);
    return {
      ...r,
      changed: r.changed.map((p) => shownPath(shelf, p)),
      conflicts: shownPaths(shelf, r.conflicts).map((c) => ({
        ...c,
        local_copy: c.local_copy === null ? null : shownPath(shelf, c.local_copy),
      })),
    };
  },
  markdown(r) {
    const where = `${escapeControl(r.library)} (${escapeControl(r.branch)} <-> ${
      escapeControl(r.upstream)
    })`;
    const state = `${count(r.ahead, "local commit")} to push, ${
      count(r.behind, "remote commit")
    } to pull`;
    if (r.dry_run) {
      const files = r.changed.length
        ? `; the pull would change ${r.changed.slice(0, 10).map(escapeControl).join(", ")}${
          r.changed.length > 10 ? ", ..." : ""
        }`
        : "";
      return `Dry run of sync of ${where}: ${state}${files}. Nothing was changed.`;
    }
    if (r.action === "up_to_date") return `${where} is up to date.`;
    const out = [
      `Synced ${where}: ${r.action.replace("_", " ")}, ${state}${r.pushed ? ", pushed" : ""}.`,
    ];
    if (r.changed.length) {
      out.push(
        `Changed: ${r.changed.slice(0, 20).map(escapeControl).join(", ")}${
          r.changed.length > 20 ? ", ..." : ""
        } (${count(r.reindexed, "document")} re-indexed).`,
      );
    }
    for (const c of r.conflicts) {
      out.push(
        c.local_copy
          ? `Conflict in ${
            escapeControl(c.path)
          }: it now holds the remote version; your version is in ${
            escapeControl(c.local_copy)
          }. Merge them and delete the copy.`
          : `Conflict in ${
            escapeControl(c.path)
          }: you deleted it, the remote changed it; the remote version is kept.`,
      );
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "sync",
    summary: "pull (rebase) and push a git library",
    usage: USAGE,
    args: () => ({}),
  },
});
