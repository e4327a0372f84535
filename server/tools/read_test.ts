import { join } from "node:path";
import type { ToolError } from "../../core/types.ts";
import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { openTestShelf } from "../../tests/shelf_helper.ts";
import { storeCases } from "../../tests/store_cases.ts";
import { callTool } from "../dispatch.ts";

const NOTE = `# Lemur field notes

Intro line.

## Diet

Lemurs eat fruit.
They also eat leaves.

## Sleeping   Habits

Lemurs sleep in trees.

# Appendix

Nothing here.
`;

async function setup(store?: string) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-read-" });
  await Deno.mkdir(join(base, "Lab"));
  await Deno.writeTextFile(join(base, "Lab", "notes.md"), NOTE);
  const t = await openTestShelf({ base, store, folders: [join(base, "Lab")] });
  await t.shelf.index();
  return t;
}

const lines = (r: { json: Record<string, unknown> }) =>
  (r.json.lines as { n: number; text: string }[]).map((l) => l.text);

storeCases({
  "read section: by node id, by heading text (case and spacing ignored), a miss lists the headings":
    async ({ store }) => {
      await using t = await setup(store);
      const doc = "Lab/notes.md";
      const byId = await callTool(t.shelf, "read", {
        doc_id: doc,
        section: "1.1",
        output_format: "json",
      });
      assertEquals(lines(byId), ["## Diet", "", "Lemurs eat fruit.", "They also eat leaves.", ""]);
      assertEquals(byId.json.offset, 5);
      const marked = await callTool(t.shelf, "read", {
        doc_id: doc,
        section: "§1.1",
        output_format: "json",
      });
      assertEquals(lines(marked), lines(byId));
      const byTitle = await callTool(t.shelf, "read", {
        doc_id: doc,
        section: "sleeping habits",
        output_format: "json",
      });
      assertEquals(lines(byTitle)[0], "## Sleeping   Habits");
      assert(lines(byTitle).includes("Lemurs sleep in trees."));
      assert(!lines(byTitle).includes("# Appendix"), "the answer stops at the section's end");
      const whole = await callTool(t.shelf, "read", {
        doc_id: doc,
        section: "1",
        output_format: "json",
      });
      assert(lines(whole).includes("Lemurs sleep in trees."), "a section includes its children");
      const miss = await assertRejects(() =>
        callTool(t.shelf, "read", { doc_id: doc, section: "Habitat" })
      ) as ToolError;
      assertEquals(miss.code, "INVALID_ARGUMENT");
      assert(miss.hint?.includes("1.1 Diet"), miss.hint);
    },
});
