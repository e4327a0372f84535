/**
 * `browse`: not built yet (a placeholder registered in the tool table).
 *
 * @module
 */
import { ToolError } from "../../core/types.ts";
import { defineTool } from "../tool.ts";

/** The `browse` tool. */
export const browse = defineTool({
  name: "browse",
  title: "browse",
  description: "Not available yet.",
  input: {},
  run(): Record<string, never> {
    throw new ToolError("INTERNAL", "browse is not built yet", "");
  },
  markdown: () => "",
  cli: {
    summary: "browse                      (not built yet)",
    usage: "shelfmark browse",
    args: () => ({}),
  },
});
