/**
 * `reindex`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `reindex` tool. */
export const reindex = defineTool({
  name: "reindex",
  title: "reindex",
  description: "Not available yet.",
  input: {},
  readOnly: false,
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "reindex is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "reindex                      (not built yet)",
    usage: "shelfmark reindex",
    args: () => ({}),
  },
});
