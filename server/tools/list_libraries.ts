/**
 * `list_libraries`: the libraries (named folders) with document counts.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, n } from "../tool.ts";
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
  run(shelf) {
    const building = shelf.status.state === "building";
    return {
      libraries: shelf.libraries.map((l) => ({
        name: l.name,
        description: l.description ?? "",
        document_count: shelf.documentCount(l.name),
        state: building ? "building" : "ready",
        root: shelf.fullPaths ? l.root : undefined,
      })),
    };
  },
  markdown(r) {
    if (!r.libraries.length) {
      return "No libraries. Add one with `shelfmark libraries add NAME PATH` or start with a folder.";
    }
    return r.libraries.map((l) =>
      `- ${l.name}: ${n(l.document_count)} documents (${l.state})` +
      (l.description ? ` — ${l.description}` : "") + (l.root ? ` [${l.root}]` : "")
    ).join("\n");
  },
  cli: {
    command: "libraries",
    summary: "libraries [add NAME PATH | remove NAME]",
    usage: `shelfmark libraries [--json]
shelfmark libraries add NAME PATH [--description TEXT]
shelfmark libraries remove NAME`,
    args: () => ({}),
  },
});
