import { join } from "node:path";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";

Deno.test("search shows a page's title and headings with their character references decoded", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-entities-" });
  await Deno.mkdir(join(base, "Web"));
  await Deno.writeTextFile(
    join(base, "Web", "cafe.html"),
    `<!DOCTYPE html><html><head><title>Caf&eacute; &euro; men&uuml;</title></head>
<body><h1>Aper&ccedil;u des nouveaut&eacute;s</h1><p>Des cr&ecirc;pes.</p></body></html>`,
  );
  await using t = await openTestShelf({ base, folders: [join(base, "Web")] });
  await t.shelf.index();
  const r = await callTool(t.shelf, "search", { query: "crêpes", output_format: "json" });
  const [hit] = r.json.results as { title: string; passages: { title: string }[] }[];
  assertEquals(hit?.title, "Café € menü");
  assertEquals(hit?.passages[0]?.title, "Aperçu des nouveautés");
  const text = await callTool(t.shelf, "search", { query: "crêpes" });
  assert(text.text.includes("Café € menü"), text.text);
  assert(!text.text.includes("&"), text.text);
});
