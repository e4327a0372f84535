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
  // The heading's own number is not repeated beside the id an agent reads by.
  assertEquals(
    where({ ...passage, node_id: "3.3.3", title: "4.3.3 Ways of Improving" }, "Beamer"),
    "L1-49 §3.3.3 Ways of Improving",
  );
  assertEquals(where({ ...passage, node_id: "3", title: "3.1. Test" }, "X"), "L1-49 §3 Test");
  assertEquals(
    where({ ...passage, node_id: "2", title: "2024 plans" }, "X"),
    "L1-49 §2 2024 plans",
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
