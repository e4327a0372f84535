import assert from "node:assert/strict";
import { appendMatchesLibrary, fastAppendResult, libraryAppendResult } from "./_markdown_append.ts";
import { html } from "./html.ts";
import { Visitor } from "node-html-markdown/dist/visitor.js";

const fresh = () => ({
  result: { text: "", trailingNewlineStats: { whitespace: 0, newLines: 0 } },
});

Deno.test("fastAppendResult() stands in for the method of the installed node-html-markdown", () => {
  assert.ok(appendMatchesLibrary, "node-html-markdown changed: check fastAppendResult again");
});

Deno.test("fastAppendResult() writes the same text and whitespace counts as the library", () => {
  const pieces = [
    "",
    " ",
    "\n",
    "\n\n",
    "\r\n",
    "*",
    "**",
    "a",
    "word ",
    "  \n ",
    "`x`",
    "_",
    "- ",
  ];
  // A fixed pseudo-random sequence of appends, some rewinding to an earlier position.
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let run = 0; run < 200; run++) {
    const lib = fresh();
    const fast = fresh();
    for (let step = 0; step < 60; step++) {
      const s = pieces[next(pieces.length)]!.repeat(1 + next(3));
      const rewind = next(8) === 0 ? next(lib.result.text.length + 1) : undefined;
      const space = next(2) === 0;
      libraryAppendResult.call(lib, s, rewind, space);
      fastAppendResult.call(fast, s, rewind, space);
      assert.equal(fast.result.text, lib.result.text);
      assert.deepEqual(fast.result.trailingNewlineStats, lib.result.trailingNewlineStats);
    }
  }
});

Deno.test("html() gives the same lines, headings and links as with the library's append", async () => {
  const items = Array.from(
    { length: 300 },
    (_, i) =>
      `<h2>Part ${i}</h2><p>See <a href="p${i}.html">page ${i}</a> <em>now</em>.</p>` +
      `<ul><li>one ${i}</li><li><code>two</code></li></ul><table><tr><td>a</td><td>${i}</td></tr></table>`,
  ).join("\n");
  const bytes = new TextEncoder().encode(`<html><body>${items}</body></html>`);
  const extract = () =>
    html().extract({ path: "a.html", extension: ".html", bytes: bytes.slice() });
  const fast = await extract();
  const proto = Visitor.prototype as { appendResult: unknown };
  proto.appendResult = libraryAppendResult;
  try {
    assert.deepEqual(fast, await extract());
  } finally {
    proto.appendResult = fastAppendResult;
  }
  assert.equal(fast.headings?.length, 300);
  assert.equal(fast.links?.length, 300);
});
