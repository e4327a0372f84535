/**
 * `connection`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `connection` tool. */
export const connection = defineTool({
  name: "connection",
  title: "connection",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "connection is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "connection                      (not built yet)",
    usage: "shelfmark connection",
    args: () => ({}),
  },
});
