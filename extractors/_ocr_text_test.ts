import { assert, assertEquals } from "../tests/assert.ts";
import { closeImageWorkers, image } from "./image.ts";
import { ocrText } from "./_ocr_text.ts";

/** A line of words with their confidences, as tesseract.js reports it. */
const line = (...words: [string, number][]) => ({
  words: words.map(([text, confidence]) => ({ text, confidence })),
});

Deno.test("ocrText() gives one line per text line, a blank line between paragraphs", () => {
  const blocks = [
    {
      paragraphs: [{ lines: [{ text: " Title \n" }] }, {
        lines: [{ text: "a  b" }, { text: "c" }],
      }],
    },
    { paragraphs: [{ lines: [{ text: "   " }] }, { lines: [{ text: "end" }] }] },
  ];
  assertEquals(ocrText(blocks, ""), ["Title", "", "a b", "c", "", "end"]);
  assertEquals(ocrText(null, "x\n\n\ny\n"), ["x", "", "y"]);
  assertEquals(ocrText([], ""), []);
});

Deno.test("ocrText() drops unsure marks but keeps unsure words", () => {
  const blocks = [{
    paragraphs: [{
      lines: [
        line(["Debian", 96], ["Developer's", 8], ["Reference,", 96], ["£3", 12]),
        line(["Release", 96], ["12.18", 96], ["|", 19]),
      ],
    }],
  }];
  assertEquals(ocrText(blocks, ""), ["Debian Developer's Reference,", "Release 12.18"]);
});

Deno.test("ocrText() gives no text for a chart read as symbols and short letter pairs", () => {
  const chart = [{
    paragraphs: Array.from({ length: 20 }, () => ({
      lines: [
        line(["©", 83], ["DO", 70], ["nn", 38], ["6e+06", 91], ["—o—", 30], ["benchmark", 90]),
      ],
    })),
  }];
  assertEquals(ocrText(chart, ""), []);
  assertEquals(ocrText([{ paragraphs: [{ lines: [line(["»", 86])] }] }], ""), []);
});

/** Whether a file of /usr/share/doc is on this machine (tests of it are ignored if not). */
function present(...paths: string[]): boolean {
  try {
    return paths.every((p) => Deno.statSync(p).isFile);
  } catch {
    return false;
  }
}

const DOC_IMG = "/usr/share/doc/nodejs/contributing/doc_img";
const CHARTS = [`${DOC_IMG}/compare-boxplot.png`, `${DOC_IMG}/scatter-plot.png`];
const ICON = "/usr/share/doc/valgrind/html/images/home.png";
const SCREEN = `${DOC_IMG}/youtube-stream-title-description.png`;

Deno.test({
  name: "image() gives charts and icons of /usr/share/doc no text, a screenshot its words",
  ignore: !present(...CHARTS, ICON, SCREEN), // packages nodejs-doc and valgrind
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const ex = image({ ocr: true });
    try {
      for (const path of [...CHARTS, ICON]) {
        const doc = await ex.extract({ path, extension: ".png", bytes: await Deno.readFile(path) });
        assertEquals(doc.lines, [], path);
      }
      const shot = await ex.extract({
        path: SCREEN,
        extension: ".png",
        bytes: await Deno.readFile(SCREEN),
      });
      const text = shot.lines.join(" ");
      assert(/Technical Committee/.test(text), text);
    } finally {
      await closeImageWorkers();
    }
  },
});
