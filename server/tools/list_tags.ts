/**
 * `list_tags`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `list_tags` tool. */
export const listTags = defineTool({
  name: "list_tags",
  title: "list_tags",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "list_tags is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "list-tags                      (not built yet)",
    usage: "shelfmark list-tags",
    args: () => ({}),
  },
});
