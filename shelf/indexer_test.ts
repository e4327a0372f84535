/** The indexer's backpressure, on a real catalog and real files. */
import { join } from "node:path";
import { Catalog } from "../core/catalog.ts";
import type { ExtractFn } from "../core/types.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { Indexer } from "./indexer.ts";

const MB = 1024 * 1024;

Deno.test("Indexer keeps the bytes of the files in flight within its budget; a larger file runs alone", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-inflight-" });
  try {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    // 1 MB and 3 MB text files, interleaved, and a few small ones
    const sizes = [MB, 3 * MB, MB, MB, MB, 3 * MB, MB, 1000, 1000, MB, 2000];
    for (const [i, size] of sizes.entries()) {
      const line = `file${i} words about quokkas and narwhals\n`;
      await Deno.writeTextFile(join(root, `f${i}.txt`), line.repeat(Math.ceil(size / line.length)));
    }
    let bytes = 0;
    let files = 0;
    let most = 0;
    const over: string[] = [];
    const extract: ExtractFn = async (input) => {
      bytes += input.bytes.length;
      files++;
      most = Math.max(most, files);
      if (files > 1 && bytes > 2.5 * MB) over.push(`${files} files, ${bytes} bytes`);
      await new Promise((r) => setTimeout(r, 5));
      const text = new TextDecoder().decode(input.bytes);
      files--;
      bytes -= input.bytes.length;
      return { extractor: "text", extracted: { lines: text.split("\n").slice(0, 50) } };
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      const indexer = new Indexer(catalog, extract, [], 3);
      indexer.maxBytesInFlight = 2.5 * MB;
      const p = await indexer.run([{ name: "Lib", root }]);
      assertEquals([p.indexed, p.skipped], [sizes.length, 0]);
      assertEquals(over, [], "files in flight together over the budget");
      assert(most >= 2, "small files still run side by side");
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
