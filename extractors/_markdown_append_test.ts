import assert from "node:assert/strict";
import {
  appendMatchesLibrary,
  fastAppendResult,
  fastVisitNode,
  libraryAppendResult,
  libraryVisitNode,
} from "./_markdown_append.ts";
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

Deno.test("fastVisitNode() stands in for visitNode of the installed node-html-markdown", () => {
  assert.equal(typeof fastVisitNode, "function", "node-html-markdown changed: check it again");
  assert.equal((Visitor.prototype as { visitNode: unknown }).visitNode, fastVisitNode);
});

Deno.test("fastAppendResult() keeps the text in pieces and cuts back across them", () => {
  const pieces = ["", " ", "\n", "ab", "word ", "*", "long piece of text "];
  let seed = 11;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let run = 0; run < 200; run++) {
    const lib = fresh();
    const fast = fresh();
    let length = 0;
    for (let step = 0; step < 80; step++) {
      const s = pieces[next(pieces.length)]!.repeat(1 + next(3));
      // the text of `fast` is read only at the end, so its pieces pile up between rewinds
      const rewind = next(6) === 0 ? next(length + 1) : undefined;
      const space = next(2) === 0;
      libraryAppendResult.call(lib, s, rewind, space);
      fastAppendResult.call(fast, s, rewind, space);
      length = lib.result.text.length;
      assert.deepEqual(fast.result.trailingNewlineStats, lib.result.trailingNewlineStats);
    }
    assert.equal(fast.result.text, lib.result.text);
  }
});

Deno.test("html() gives the same answer as with the library's visitNode and append", async () => {
  const items = Array.from(
    { length: 200 },
    (_, i) =>
      `<h2>Part ${i}</h2><p>See <a href="p${i}.html">page <b>${i}</b></a> <em>now</em>.</p>` +
      `<ul><li>one <strong></strong>${i}<ul><li><code>two</code></li></ul></li></ul>` +
      `<blockquote><p>q ${i}</p></blockquote><table><tr><td>a</td><td>${i}</td></tr></table>`,
  ).join("\n");
  const bytes = new TextEncoder().encode(`<html><body>${items}</body></html>`);
  const extract = () =>
    html().extract({ path: "a.html", extension: ".html", bytes: bytes.slice() });
  const fast = await extract();
  const proto = Visitor.prototype as { appendResult: unknown; visitNode: unknown };
  proto.appendResult = libraryAppendResult;
  proto.visitNode = libraryVisitNode;
  try {
    assert.deepEqual(fast, await extract());
  } finally {
    proto.appendResult = fastAppendResult;
    proto.visitNode = fastVisitNode;
  }
  assert.equal(fast.headings?.length, 200);
  assert.equal(fast.links?.length, 200);
});
