/**
 * `links`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `links` tool. */
export const links = defineTool({
  name: "links",
  title: "links",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "links is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "links                      (not built yet)",
    usage: "shelfmark links",
    args: () => ({}),
  },
});
