import { assertEquals } from "../../tests/assert.ts";
import { afterHeading, where } from "./_results.ts";

const passage = {
  start_line: 1,
  end_line: 49,
  node_id: "1",
  title: "shelve — Python object persistence",
  snippet: "",
};

Deno.test("compact hit: a section titled like its document is named by its id alone", () => {
  assertEquals(
    where(passage, "shelve — Python object persistence — Python 3.11.2 documentation"),
    "L1-49 §1",
  );
  assertEquals(
    where({ ...passage, node_id: "2.1", title: "Restrictions", page: 7 }, "Shelve"),
    "L1-49 p.7 §2.1 Restrictions",
  );
});

Deno.test("compact hit: the snippet does not repeat the section's heading", () => {
  assertEquals(
    afterHeading(
      "**shelve** — Python object persistence Source code: Lib/**shelve**.py --- A shelf is persistent.",
      "shelve — Python object persistence",
    ),
    "Source code: Lib/**shelve**.py --- A shelf is persistent.",
  );
  const other = "The data in serial or identity columns backed by sequences is replicated.";
  assertEquals(afterHeading(other, "31.6. Restrictions"), other);
});
