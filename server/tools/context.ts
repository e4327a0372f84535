/**
 * `context`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `context` tool. */
export const context = defineTool({
  name: "context",
  title: "context",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "context is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "context                      (not built yet)",
    usage: "shelfmark context",
    args: () => ({}),
  },
});
