/**
 * `shelfmark demo`: index the bundled sample documents into a temporary data directory
 * and walk through search -> outline -> read -> grep, printing what an agent would see.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Shelf } from "../shelf/shelf.ts";
import { callTool } from "./dispatch.ts";
import type { ToolName } from "./tools/mod.ts";

/** Run the demo; resolves to an exit code. */
export async function demo(): Promise<number> {
  const samples = join(dirname(fileURLToPath(import.meta.url)), "..", "samples");
  const data = await Deno.makeTempDir({ prefix: "shelfmark-demo-" });
  const shelf = await Shelf.open({ data, folders: [samples] });
  try {
    const p = await shelf.index();
    console.log(`Indexed ${p.indexed} sample documents from ${samples}\n`);
    const step = async (cli: string, tool: ToolName, args: Record<string, unknown>) => {
      console.log(`$ shelfmark ${cli}`);
      const r = await callTool(shelf, tool, args, { cli: true });
      console.log(r.text + "\n");
      return r.json;
    };
    const found = await step('search "rowid table compression" --limit 3', "search", {
      query: "rowid table compression",
      limit: 3,
    });
    const first = (found.results as { doc_id: string }[])[0];
    if (!first) return 1;
    const ol = await step(`outline ${first.doc_id}`, "outline", {
      doc_ids: [first.doc_id],
      max_tokens: 600,
    });
    const doc =
      (ol.documents as { nodes: { start_line: number; children: { start_line: number }[] }[] }[])[
        0
      ];
    const node = doc?.nodes[0]?.children?.[0] ?? doc?.nodes[0];
    const offset = node?.start_line ?? 1;
    await step(`read ${first.doc_id} --offset ${offset} --limit 15`, "read", {
      doc_id: first.doc_id,
      offset,
      limit: 15,
    });
    await step(`grep -C 1 "compress" ${first.doc_id} --limit 3`, "grep", {
      pattern: "compress",
      doc_id: first.doc_id,
      context: 1,
      limit: 3,
    });
    console.log(`Next: \`deno task start ${samples}\` serves these tools over MCP stdio.`);
    return 0;
  } finally {
    await shelf.close();
    await Deno.remove(data, { recursive: true }).catch(() => {});
  }
}
