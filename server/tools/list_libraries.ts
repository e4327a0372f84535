/**
 * `list_libraries`: the libraries (named folders) with document counts.
 *
 * @module
 */
import { z } from "zod";
import { loadConfig, saveConfig } from "../../core/config.ts";
import { defineTool, UsageError } from "../tool.ts";
import { count } from "./_listing.ts";
import { obj } from "./_output.ts";

/** The `list_libraries` tool. */
export const listLibraries = defineTool({
  name: "list_libraries",
  title: "List libraries",
  waitsForIndex: false,
  description: "The libraries (named folders) shelfmark indexes, with document counts.",
  input: {},
  output: {
    libraries: z.array(
      obj({ name: z.string(), document_count: z.number().int(), state: z.string() }),
    ),
  },
  async run(shelf) {
    const building = shelf.status.state === "building";
    // another machine's libraries of a shared store too (no root here)
    const others = (await shelf.otherLibraries()).map((name) => ({ name, description: "" }));
    const libraries = [...shelf.libraries, ...others];
    const counts = await Promise.all(libraries.map((l) => shelf.documentCount(l.name)));
    return {
      libraries: libraries.map((l, i) => ({
        name: l.name,
        description: l.description ?? "",
        document_count: counts[i]!,
        state: building ? "building" : "ready",
        root: shelf.fullPaths && "root" in l ? l.root : undefined,
      })),
    };
  },
  markdown(r) {
    if (!r.libraries.length) {
      return "No libraries. Add one with `shelfmark libraries add NAME PATH` or start with a folder.";
    }
    return r.libraries.map((l) =>
      `- ${l.name}: ${count(l.document_count, "document")} (${l.state})` +
      (l.description ? ` — ${l.description}` : "") + (l.root ? ` [${l.root}]` : "")
    ).join("\n");
  },
  cli: {
    command: "libraries",
    synopsis: "libraries [add NAME PATH | remove NAME]",
    summary: "the libraries; add or remove one",
    flags: { description: { type: "string" } },
    usage: `shelfmark libraries [--json]
shelfmark libraries add NAME PATH [--description TEXT]
shelfmark libraries remove NAME`,
    args: () => ({}),
    // `add` and `remove` edit shelfmark.json; no subcommand lists, as the tool does.
    async run(term, pos) {
      const config = loadConfig(term.data);
      const [sub, name, path] = pos;
      if (sub === undefined) return undefined;
      if (sub === "add") {
        if (!name || !path) throw new UsageError(`libraries add: NAME and PATH are required`);
        const st = await Deno.stat(path).catch(() => undefined);
        if (!st?.isDirectory) throw new UsageError(`libraries add: not a folder: ${path}`);
        if (config.libraries.some((l) => l.name === name)) {
          throw new UsageError(`libraries add: a library named "${name}" exists`);
        }
        const description = term.flags.description as string | undefined;
        config.libraries.push({ name, path: await Deno.realPath(path), description });
        saveConfig(term.data, config);
        return `Added library ${name}. Run \`shelfmark index\` to index it.`;
      }
      if (sub === "remove") {
        if (!name) throw new UsageError(`libraries remove: NAME is required`);
        const before = config.libraries.length;
        config.libraries = config.libraries.filter((l) => l.name !== name);
        if (config.libraries.length === before) {
          throw new UsageError(`libraries remove: no library named "${name}"`);
        }
        saveConfig(term.data, config);
        return `Removed library ${name}; its documents leave the index at the next run.`;
      }
      throw new UsageError(`libraries: unknown subcommand "${sub}" (add or remove)`);
    },
  },
});
