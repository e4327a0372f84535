import { assertEquals } from "../tests/assert.ts";
import { ProseScanner } from "./prose.ts";

Deno.test("ProseScanner closes a fence only with the same mark, at least as long", () => {
  const scan = new ProseScanner();
  const lines = [
    "````markdown",
    "```js",
    "x()",
    "```",
    "~~~",
    "still code",
    "````",
    "Text after.",
  ];
  assertEquals(lines.map((l) => scan.next(l)), ["", "", "", "", "", "", "", "Text after."]);
});

Deno.test("ProseScanner skips a multi-line HTML comment and keeps the text before it", () => {
  const scan = new ProseScanner();
  assertEquals(["Before <!-- a note", "```", "-->", "After."].map((l) => scan.visible(l)), [
    "Before ",
    undefined,
    undefined,
    "After.",
  ]);
  assertEquals(scan.skipping, false);
});
