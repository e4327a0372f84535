/**
 * `recent`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `recent` tool. */
export const recent = defineTool({
  name: "recent",
  title: "recent",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "recent is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "recent                      (not built yet)",
    usage: "shelfmark recent",
    args: () => ({}),
  },
});
