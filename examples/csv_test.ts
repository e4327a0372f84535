/** The example plugin through the real CLI: `--extractor ./examples/csv.ts` indexes CSV files. */
import { join } from "node:path";
import { assertEquals, assertMatch } from "../tests/assert.ts";
import { splitCsv } from "./csv.ts";

import { runCli as run } from "../tests/cli_helper.ts";

const PLUGIN = new URL("./csv.ts", import.meta.url).pathname;

Deno.test("splitCsv() honours quotes and doubled quotes", () => {
  assertEquals(splitCsv('a,"b, c","say ""hi"""'), ["a", "b, c", 'say "hi"']);
});

Deno.test("examples/csv.ts plugin: CSV files are indexed, searched and read as a table", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-csv-" });
  const lib = join(base, "Data");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(
    join(lib, "animals.csv"),
    "name,habitat\ncapybara,wetlands\nibex,mountains\n",
  );
  const data = join(base, "data");
  try {
    assertEquals((await run(["index", lib, "--data", data, "--extractor", PLUGIN, "-q"])).code, 0);
    const s = await run(["search", "capybara", "--data", data, "--json"]);
    const hit = JSON.parse(s.stdout).results[0];
    assertEquals([hit.path, hit.doc_type, hit.title], ["Data/animals.csv", "csv", "name, habitat"]);
    const r = await run(["read", hit.doc_id, "--data", data]);
    assertMatch(r.stdout, /^3 \| \| capybara \| wetlands \|$/m);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
