/**
 * The library the fuzzer works on (corpus folders plus a line that makes backtracking
 * regexes explode) and the doc ids and library names it draws arguments from.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { callTool, copyLibraries } from "./_helpers.ts";
import type { FuzzPools } from "./fuzz.ts";

/** Make `WORK/lib` from corpus folders plus `evil.txt`; returns its path. */
export async function fuzzLibrary(
  corpus: string,
  work: string,
  folders: string[],
): Promise<string> {
  const lib = join(work, "lib");
  await Deno.mkdir(lib, { recursive: true });
  await copyLibraries(corpus, folders, lib);
  await Deno.writeTextFile(
    join(lib, "evil.txt"),
    `Evil\n\n${"a".repeat(40)}!\n${"x".repeat(60)}\n`,
  );
  return lib;
}

/** Doc ids and paths found by a few searches, and the library names. */
export async function fuzzPools(client: Client): Promise<FuzzPools> {
  const docIds = new Set<string>();
  for (const q of ["the", "evil", "install", "function", "file"]) {
    const r = await callTool(client, "search", { query: q, limit: 50, output_format: "json" });
    const results = (r.structuredContent?.results ?? []) as { doc_id: string; path: string }[];
    for (const x of results.slice(0, 15)) {
      docIds.add(x.doc_id);
      docIds.add(x.path);
    }
  }
  const libs = await callTool(client, "list_libraries", { output_format: "json" });
  const libraries = ((libs.structuredContent?.libraries ?? []) as { name: string }[]).map((l) =>
    l.name
  );
  return { docIds: [...docIds], libraries };
}
