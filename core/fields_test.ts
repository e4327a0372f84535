import { assert, assertEquals } from "../tests/assert.ts";
import { Catalog } from "./catalog.ts";
import {
  checkFields,
  docFields,
  documentFields,
  fieldValues,
  foldValue,
  libraryFields,
  normalizeFieldFilters,
} from "./fields.ts";
import type { Card } from "./types.ts";
import { ToolError } from "./types.ts";

function assertThrows(fn: () => unknown, cls: typeof ToolError): ToolError {
  try {
    fn();
  } catch (e) {
    assert(e instanceof cls, `threw ${e}`);
    return e;
  }
  throw new Error("did not throw");
}

Deno.test("foldValue: NFC, trimmed, lower case; a tag loses its #", () => {
  assertEquals(foldValue("tags", " #Pacing "), "pacing");
  assertEquals(foldValue("status", "#Draft"), "#draft");
  assertEquals(foldValue("tags", "Cafe\u0301"), "café");
});

Deno.test("documentFields: front matter first, metadata stands in, values capped and distinct", () => {
  const wanted = libraryFields({});
  assertEquals(wanted, ["tags", "aliases", "type", "status", "author"]);
  assertEquals(
    documentFields({
      fields: { tags: ["A", "a", " b ", "", "x".repeat(300)], mood: ["calm"] },
      author: "Ann",
      tags: ["ignored: front matter has tags"],
    }, wanted),
    { tags: ["A", "b"], author: ["Ann"] },
  );
  assertEquals(documentFields({ tags: ["kw"] }, ["tags"]), { tags: ["kw"] });
  assertEquals(documentFields(undefined, ["tags"]), {});
  // Plugins are not trusted: junk is left out.
  const junk = { fields: { tags: [1, null, "ok"] } } as unknown as Parameters<
    typeof documentFields
  >[0];
  assertEquals(documentFields(junk, ["tags"]), { tags: ["ok"] });
  const many = documentFields({ fields: { tags: [...Array(150).keys()].map(String) } }, ["tags"]);
  assertEquals(many.tags!.length, 100);
});

Deno.test("normalizeFieldFilters and checkFields refuse what cannot match", () => {
  assertEquals(normalizeFieldFilters({ Tags: "#A", status: ["X", "x"] }), {
    tags: ["a"],
    status: ["x"],
  });
  assertThrows(() => normalizeFieldFilters({ tags: [] }), ToolError);
  assertThrows(() => normalizeFieldFilters({ tags: " " }), ToolError);
  const libs = [{ name: "A", root: "/a" }, { name: "B", root: "/b", fields: ["Topic"] }];
  checkFields(libs, undefined, ["topic", "tags"]);
  checkFields(libs, "B", ["TOPIC"]);
  const e = assertThrows(() => checkFields(libs, "B", ["tags"]), ToolError);
  assertEquals(e.code, "INVALID_ARGUMENT");
});

Deno.test("the catalog keeps, filters on, counts and forgets field values", () => {
  const cat = new Catalog(":memory:");
  const put = (id: string, library: string, fields: Record<string, string[]>) =>
    cat.put({
      card: {
        doc_id: id,
        path: `${library}/${id}.md`,
        library,
        doc_type: "markdown",
        title: id,
        modified_at: "2024-01-01T00:00:00.000Z",
        size: 1,
        word_count: 1,
      } as Card,
      outline: [],
      terms: {},
      hash: id,
      mtime_ms: 0,
      fields,
    }, "text");
  put("1", "A", { tags: ["Plot", "pacing"], status: ["draft"] });
  put("2", "A", { tags: ["plot"] });
  put("3", "B", { tags: ["PLOT"] });
  assertEquals(docFields(cat.db, "1"), { tags: ["Plot", "pacing"], status: ["draft"] });
  assertEquals(cat.idsMatching({ fields: { tags: "plot" } })?.sort(), ["1", "2", "3"]);
  assertEquals(cat.idsMatching({ fields: { tags: "plot", status: "DRAFT" } }), ["1"]);
  assertEquals(cat.idsMatching({ fields: { tags: "plot" }, library: "B" }), ["3"]);
  assertEquals(fieldValues(cat.db, "tags", undefined, 10), {
    values: [{ value: "PLOT", documents: 3 }, { value: "pacing", documents: 1 }],
    total: 2,
  });
  assertEquals(fieldValues(cat.db, "tags", "A", 1).values, [{ value: "Plot", documents: 2 }]);
  put("1", "A", {});
  assertEquals(docFields(cat.db, "1"), {});
  cat.remove(["2"]);
  assertEquals(fieldValues(cat.db, "tags", "A", 10).total, 0);
  cat.close();
});
