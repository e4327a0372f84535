/**
 * The answering sentence: sentences from extracted lines (lists, tables, escapes, PDF line
 * breaks), the lexical choice, and long sentences cut around the query's words.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { chooseSentence, cutAround, lexicalScores, queryWords, sentencesOf } from "./sentence.ts";

const numbered = (lines: string[]) => lines.map((text, i) => ({ n: i + 1, text }));

Deno.test("sentencesOf() keeps list items and table rows apart, drops escapes and headings", () => {
  const s = sentencesOf(numbered([
    "## Options",
    "- first item without a full stop",
    "- second item, also without one",
    "| flag | meaning |",
    "| --- | --- |",
    "| -v | verbose output |",
    "Call open(filename, flag\\='c') to open it.",
  ]));
  assertEquals(s.map((x) => [x.line, x.text]), [
    [2, "first item without a full stop"],
    [3, "second item, also without one"],
    [4, "flag; meaning"],
    [6, "-v; verbose output"],
    [7, "Call open(filename, flag='c') to open it."],
  ]);
});

Deno.test("sentencesOf() gives each sentence the line and page it starts on", () => {
  const s = sentencesOf([
    { n: 10, text: "The first sentence ends on the", page: 4 },
    { n: 11, text: "next line. The second starts here and", page: 4 },
    { n: 12, text: "goes on to a new page.", page: 5 },
  ]);
  assertEquals(s.map((x) => [x.line, x.page]), [[10, 4], [11, 4]]);
});

Deno.test("lexicalScores() prefers the sentence with more of the query's words together", () => {
  const s = sentencesOf(numbered([
    "The harbour is busy in summer. Lights line the pier.",
    "",
    "The harbour lights are switched on at dusk by the ferry captain.",
    "",
    "Nothing here matches.",
  ]));
  const terms = ["when are the harbour lights switched on"];
  const scores = lexicalScores(s, terms);
  assertEquals(scores.at(-1), 0);
  const best = chooseSentence(s, scores, terms, 240);
  assertEquals(best?.text, "The harbour lights are switched on at dusk by the ferry captain.");
  assertEquals(best?.line, 3);
});

Deno.test("cutAround() keeps the query's words of a long sentence", () => {
  const long = `${"padding words here ".repeat(30)}the quokka harbour lights ${"tail ".repeat(80)}`;
  const cut = cutAround(long, queryWords(["quokka lights"]), 100);
  assert(cut.length <= 100, `${cut.length}`);
  assert(cut.includes("quokka harbour lights"), cut);
  assert(cut.startsWith("…") && cut.endsWith("…"), cut);
});

Deno.test("sentencesOf() leaves fenced code out and ends the paragraph before it", () => {
  const s = sentencesOf(numbered([
    "Run the pool with a single worker thread",
    "```python",
    "executor = ThreadPoolExecutor(max_workers=1)",
    "```",
    "The default number of workers depends on the CPU count.",
  ]));
  assertEquals(s.map((x) => [x.line, x.text]), [
    [1, "Run the pool with a single worker thread"],
    [5, "The default number of workers depends on the CPU count."],
  ]);
});

Deno.test("sentencesOf() mends a word a man page hyphenates across lines with U+2010", () => {
  const s = sentencesOf(
    numbered(["The names are inter\u2010", "preted as for the environment variable."]),
  );
  assertEquals(s.map((x) => x.text), [
    "The names are interpreted as for the environment variable.",
  ]);
});

Deno.test("sentencesOf() leaves out underlined headings and keeps the text after them", () => {
  const s = sentencesOf(numbered([
    "SSH and File Transport",
    "~~~~~~~~~~~~~~~~~~~~~~",
    "",
    "When using either the ssh:// or file:// transport, the GIT_PROTOCOL",
    "environment variable must be set explicitly.",
    "Bisect run",
    "----------",
    "The special exit code 125 marks a commit that cannot be tested.",
  ]));
  assertEquals(s.map((x) => [x.line, x.text]), [
    [
      4,
      "When using either the ssh:// or file:// transport, the GIT_PROTOCOL environment variable must be set explicitly.",
    ],
    [8, "The special exit code 125 marks a commit that cannot be tested."],
  ]);
});

Deno.test("sentencesOf() leaves out a PDF's numbered headings, not numbered list items", () => {
  const s = sentencesOf(numbered([
    "2.1.2 Startup Files",
    "When Octave starts, it looks for commands to execute from the files in this list.",
    "1. First item of a numbered list",
  ]));
  assertEquals(s.map((x) => [x.line, x.text]), [
    [2, "When Octave starts, it looks for commands to execute from the files in this list."],
    [3, "First item of a numbered list"],
  ]);
});

Deno.test("chooseSentence() takes the first sentence when only the title holds query words", () => {
  const s = sentencesOf(numbered([
    "An error returned when a stream ends before it has finished.",
    "It carries no further details.",
  ]));
  const terms = ["what does ERR_STREAM_PREMATURE_CLOSE mean"];
  const scores = lexicalScores(s, terms);
  assertEquals(scores, [0, 0]);
  assertEquals(chooseSentence(s, scores, terms, 240, "Lines 1-2"), undefined);
  assertEquals(
    chooseSentence(s, scores, terms, 240, "ERR_STREAM_PREMATURE_CLOSE")?.text,
    "An error returned when a stream ends before it has finished. It carries no further details.",
  );
});

Deno.test("chooseSentence() by the title skips a line of one or two words (a 'top' link)", () => {
  const s = sentencesOf(numbered([
    "```",
    "CacheEnable disk /",
    "```",
    "top",
    "",
    "The disk keeps responses for later requests.",
  ]));
  // the code block is no candidate; no candidate holds a query word, the title does
  assertEquals(s.map((x) => x.text), ["top", "The disk keeps responses for later requests."]);
  const terms = ["sample proxy cache configuration"];
  assertEquals(lexicalScores(s, terms), [0, 0]);
  assertEquals(
    chooseSentence(s, [0, 0], terms, 240, "Sample cache configuration")?.text,
    "The disk keeps responses for later requests.",
  );
  assertEquals(chooseSentence([s[0]!], [0], terms, 240, "Sample cache configuration"), undefined);
});

Deno.test("sentencesOf() leaves comments out and keeps a long fence open past a short one", () => {
  const s = sentencesOf(numbered([
    "The guide starts here with a sentence.",
    "<!-- TODO: rewrite this section",
    "before the next release. -->",
    "````markdown",
    "```sh",
    "Not a sentence of the guide at all.",
    "```",
    "````",
    "The guide ends here with a sentence.",
  ]));
  assertEquals(s.map((x) => [x.line, x.text]), [
    [1, "The guide starts here with a sentence."],
    [9, "The guide ends here with a sentence."],
  ]);
});

Deno.test("chooseSentence() joins the previous sentence when it scores above the next", () => {
  const s = [
    { text: "Dates are written with the four-digit year first.", line: 1, paragraph: 0 },
    { text: "Native packages with dates follow these rules.", line: 2, paragraph: 0 },
    { text: "Nothing else is said here at all.", line: 3, paragraph: 0 },
  ];
  assertEquals(chooseSentence(s, [1, 2, 0], ["dates"], 240), {
    text: "Dates are written with the four-digit year first. " +
      "Native packages with dates follow these rules.",
    line: 1,
    score: 2,
  });
  // The next one on ties, and when the previous one is of another paragraph.
  assertEquals(chooseSentence(s, [0, 2, 0], ["dates"], 240)?.line, 2);
  assertEquals(
    chooseSentence(s.map((x, i) => ({ ...x, paragraph: i })), [1, 2, 0], ["dates"], 240)?.text,
    "Native packages with dates follow these rules.",
  );
});
