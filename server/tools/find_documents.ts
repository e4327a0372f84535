/**
 * `find_documents`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `find_documents` tool. */
export const findDocuments = defineTool({
  name: "find_documents",
  title: "find_documents",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "find_documents is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "find-documents                      (not built yet)",
    usage: "shelfmark find-documents",
    args: () => ({}),
  },
});
