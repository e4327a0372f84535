/**
 * The text of an OCR result, or none: tesseract's words below a confidence floor are
 * dropped, and a result that holds too few real words (an icon read as "©", a chart read
 * as 66 lines of "© DO © DO") gives no text at all, so the image is found by its name and
 * metadata only. Shared by the OCR of images and of scanned PDF pages.
 *
 * @module
 */

/** A word as tesseract.js reports it: its text and confidence (0–100). */
export interface OcrWord {
  /** The word's text. */
  text?: string;
  /** Tesseract's confidence in the word, 0–100. */
  confidence?: number;
}

/** A block of tesseract.js's result: paragraphs of lines of words. */
export interface OcrBlock {
  /** Paragraphs of the block. */
  paragraphs?: {
    lines?: {
      /** The line's text (used when it has no words). */
      text?: string;
      /** The line's words with their confidences. */
      words?: OcrWord[];
    }[];
  }[];
}

/**
 * Marks of fewer than two letters ("£3", "|", "I/", "<<") that tesseract is less sure of
 * than this (0–100) are dropped. Words are kept whatever their confidence: in the corpus's
 * scans correct words come with low confidences too ("Developer's" at 8, "https://wiki"
 * at 0, "‘.mo’" at 29), and dropping them made the character error rate worse.
 */
export const WORD_CONFIDENCE_FLOOR = 30;
/** Fewest real words a text must hold. */
export const MIN_REAL_WORDS = 3;
/**
 * Smallest share of the kept words that must be real words: 0.71–0.82 on the corpus's
 * scans, 0.47 on a screenshot of a program, 0.03 on a boxplot and 0.18 on a scatter plot.
 */
export const MIN_REAL_SHARE = 0.4;

/** Whether a word holds two letters or more. */
function lettered(word: string): boolean {
  return (word.match(/\p{L}/gu)?.length ?? 0) >= 2;
}

/**
 * A real word: three letters or more once punctuation around it is gone, mostly letters,
 * with a vowel ("DO", "nn", "LJ" and "©" are what OCR reads in a chart, not words).
 */
function realWord(word: string): boolean {
  const core = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
  const letters = core.match(/\p{L}/gu)?.length ?? 0;
  return letters >= 3 && letters >= core.length * 0.8 && /[aeiouyäöüéèàáíóú]/i.test(core);
}

/**
 * Lines of an OCR result: one per text line, a blank line between paragraphs. Marks of fewer
 * than two letters under {@link WORD_CONFIDENCE_FLOOR} are left out; when fewer than {@link MIN_REAL_WORDS} real
 * words remain, or real words are under {@link MIN_REAL_SHARE} of the words kept, the
 * result is no text (`[]`). Lines without words keep their text; without blocks, `text`
 * is split into lines as it is.
 *
 * @param blocks tesseract.js's `blocks` (with words and their confidences)
 * @param text tesseract.js's `text`, used when there are no blocks
 * @returns the lines, or `[]` when the image holds no credible text
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const line = (...words: [string, number][]) => ({
 *   words: words.map(([text, confidence]) => ({ text, confidence })),
 * });
 * const scan = [{ paragraphs: [{ lines: [line(["Read", 95], ["the", 93], ["manual", 9], ["~~", 20], ["£3", 12])] }] }];
 * assert.deepEqual(ocrText(scan, ""), ["Read the manual"]);
 * const icon = [{ paragraphs: [{ lines: [line(["©", 60], ["DO", 40]), line(["©", 55], ["DO", 35])] }] }];
 * assert.deepEqual(ocrText(icon, ""), []);
 * ```
 */
export function ocrText(blocks: OcrBlock[] | null | undefined, text: string): string[] {
  const out: string[] = [];
  let kept = 0;
  let real = 0;
  let rated = false;
  const push = (l: string) => {
    const t = l.replace(/\s+/g, " ").trim();
    if (t) out.push(t);
  };
  if (blocks && blocks.length) {
    for (const block of blocks) {
      for (const para of block.paragraphs ?? []) {
        const before = out.length;
        for (const line of para.lines ?? []) {
          if (!line.words?.length) {
            push(line.text ?? "");
            continue;
          }
          rated = true;
          const words = line.words.map((w) => ({ text: w.text?.trim() ?? "", c: w.confidence }))
            .filter((w) => w.text && ((w.c ?? 100) >= WORD_CONFIDENCE_FLOOR || lettered(w.text)))
            .map((w) => w.text);
          kept += words.length;
          real += words.filter(realWord).length;
          push(words.join(" "));
        }
        if (out.length > before) out.push("");
      }
    }
  } else {
    for (const l of text.split("\n")) {
      if (l.trim()) push(l);
      else if (out.length && out[out.length - 1] !== "") out.push("");
    }
  }
  if (rated && (real < MIN_REAL_WORDS || real < kept * MIN_REAL_SHARE)) return [];
  while (out.length && out[out.length - 1] === "") out.pop();
  return out;
}
