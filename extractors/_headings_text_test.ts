import { assertEquals } from "../tests/assert.ts";
import { textHeadings } from "./_headings_text.ts";

const titles = (text: string) =>
  textHeadings(text.split("\n")).headings.map((h) => [h.level, h.title]);

Deno.test("textHeadings() reads underlined titles with levels in order of appearance", () => {
  const doc =
    "Title\n=====\n\nIntro text.\n\nPart one\n--------\n\nBody.\n\nPart two\n--------\n\nMore.\n";
  assertEquals(titles(doc), [[1, "Title"], [2, "Part one"], [2, "Part two"]]);
});

Deno.test("textHeadings() ignores a thematic break after a paragraph's last line", () => {
  const doc =
    "Some text that goes on\nand ends here.\n-----\n\nOther\n=====\n\nx\n\nAgain\n=====\n\ny\n";
  assertEquals(titles(doc), [[1, "Other"], [1, "Again"]]);
});

Deno.test("textHeadings() reads man pages: ALL CAPS sections and indented sub-sections", () => {
  const doc = [
    "ls(1)        User Commands        ls(1)",
    "",
    "NAME",
    "       ls - list directory contents",
    "",
    "DESCRIPTION",
    "       List information about the FILEs.",
    "",
    "   Exit status:",
    "       0      if OK,",
    "",
    "   Sorting",
    "       Sort entries alphabetically.",
    "",
    "SEE ALSO",
    "       dir(1)",
  ].join("\n");
  assertEquals(titles(doc), [[1, "NAME"], [1, "DESCRIPTION"], [2, "Sorting"], [1, "SEE ALSO"]]);
});

Deno.test("textHeadings() reads numbered headings by depth and skips numbered sentences", () => {
  const doc = [
    "1 Introduction",
    "",
    "Text.",
    "",
    "1.1 Scope",
    "",
    "2. This numbered line is a sentence, so it is not a heading.",
    "",
    "2 Usage",
    "",
    "Text.",
  ].join("\n");
  assertEquals(titles(doc), [[1, "1 Introduction"], [2, "1.1 Scope"], [1, "2 Usage"]]);
});

Deno.test("textHeadings() finds nothing reliable in plain prose", () => {
  const r = textHeadings("Just a note.\nWith two lines of text.\n".split("\n"));
  assertEquals(r, { headings: [], quality: "none" });
});
