/**
 * Words: tokenising for keywords and queries, stop words, and CJK segmentation
 * (with the built-in `Intl.Segmenter`) so Chinese and Japanese text becomes words
 * that SQLite FTS5 can index.
 *
 * @module
 */

/** Kana: Hiragana and Katakana, with the prolonged sound mark ー. */
export const KANA: string = "\\u3040-\\u30ff";
/** Han: CJK Unified Ideographs, Extension A and the Compatibility Ideographs. */
export const HAN: string = "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff";
/** Hangul syllables. */
export const HANGUL: string = "\\uac00-\\ud7af";

/**
 * The one definition of CJK: the characters of Chinese, Japanese and Korean words (kana,
 * Han, Hangul syllables), as the inside of a regular expression character class.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const runs = new RegExp(`[${CJK_CHARS}]+`, "g");
 * assert.deepEqual("SQLite 全文検索 and 한국어".match(runs), ["全文検索", "한국어"]);
 * ```
 */
export const CJK_CHARS: string = KANA + HAN + HANGUL;

/**
 * CJK written without spaces between words, derived from {@link CJK_CHARS}: without Hangul
 * (Korean keeps its spaces), with CJK punctuation (U+3000–303F) and full-width forms
 * (U+FF00–FFEF), which stand between words without spaces too.
 */
export const CJK_UNSPACED_CHARS: string = "\\u3000-\\u303f" + KANA + HAN + "\\uff00-\\uffef";

const CJK = new RegExp(`[${CJK_CHARS}]`);
const CJK_RUN = new RegExp(`[${CJK_CHARS}]+`, "g");
const wordSegmenter = new Intl.Segmenter("ja", { granularity: "word" });

/** English, French, German and Spanish function words, left out of keywords and queries. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before " +
    "being below between both but by can could did do does doing down during each either else " +
    "etc ever every few for from further get gets got had has have having he her here hers " +
    "herself him himself his how however i if in into is it its itself just let like may me " +
    "might more most much must my myself no nor not now of off on once one only or other our " +
    "ours ourselves out over own same shall she should so some such than that the their theirs " +
    "them themselves then there these they this those through to too under until up upon us " +
    "use used uses using very via was we were what when where whether which while who whom " +
    "whose why will with within without would yet you your yours yourself yourselves " +
    "le la les un une des du de et est en que qui dans pour pas sur au aux ce cette ces il " +
    "elle ils elles ne se sont par avec son sa ses leur leurs ou mais plus être été " +
    "der die das den dem des ein eine einer eines einem einen und ist im zu mit von auf für " +
    "nicht sich es sie er wird werden wie auch als bei nach aus oder wenn kann sind dass " +
    "el los las y del por con para una es lo se su sus como más pero " +
    // Pronouns, question words and auxiliaries that questions in these languages are made of
    // ("man", "sin", "so" are left out: they are also technical words).
    "je nous vous moi mon ma mes ton ta tes notre votre comment pourquoi quand où quel quelle " +
    "quels quelles peut peux puis dois doit faut faire fait avoir ai si non très sans sous " +
    "ich du wir ihr mich mir dich dir uns euch mein meine meinen meinem meiner dein deine " +
    "warum wieso weshalb was wo wer wann welche welcher welches welchen noch nur schon sehr " +
    "haben hat habe hatte kein keine keinen können kann könnte muss müssen soll sollte will " +
    "möchte darf doch aber dann denn über unter vor zwischen durch ohne um am vom zum zur beim " +
    "ins ob geben gibt statt " +
    "cómo qué cuál cuáles cuándo dónde porque yo mi mis me te tu tus nos al le les si no sí ya " +
    "muy sobre entre hasta desde cuando donde hay ser estar son está están puedo puede puedes " +
    "hacer tengo tiene quiero un unos unas este esta estos estas ese esa"
  ).split(" "),
);

/** True when the text contains Chinese, Japanese or Korean characters. */
export function hasCJK(text: string): boolean {
  return CJK.test(text);
}

/**
 * Insert spaces between the words of CJK runs so a whitespace/Unicode tokenizer
 * sees words; other text is returned unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(segmentCJK("全文検索エンジン"), " 全文 検索 エンジン ");
 * ```
 */
export function segmentCJK(text: string): string {
  if (!hasCJK(text)) return text;
  return text.replace(CJK_RUN, (run) => {
    const words: string[] = [];
    for (const s of wordSegmenter.segment(run)) {
      if (s.isWordLike) words.push(s.segment);
    }
    return ` ${words.join(" ")} `;
  });
}

/**
 * A query word without the punctuation around it, lower-cased (`¿Cómo` -> `cómo`,
 * `pages?` -> `pages`); inner punctuation stays (`node.js`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(bareWord("(Pages?)"), "pages");
 * ```
 */
export function bareWord(text: string): string {
  return text.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}_'’.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;
const NUMBER = /^[\d.,_-]+$/;

/**
 * Lower-cased words of a text, CJK segmented, without stop words, numbers or
 * one-letter words. Words keep inner `_ - . '` (`mod_rewrite`, `utf-8`, `os.path`).
 */
export function words(text: string, keepStopWords = false): string[] {
  const out: string[] = [];
  const src = segmentCJK(text).toLowerCase();
  // `match` gives the words as strings, without a match object for each (a fifth faster).
  for (const w of src.match(WORD) ?? []) {
    if (w.length < 2 && !hasCJK(w)) continue;
    if (!keepStopWords && STOP_WORDS.has(w)) continue;
    // A number starts with a digit (a word starts with a letter or digit): most words are
    // not tested.
    const c = w.charCodeAt(0);
    if (c >= 48 && c <= 57 && NUMBER.test(w)) continue;
    out.push(w);
  }
  return out;
}

/** Count the words of a text (every run of letters or digits; CJK characters count as words). */
export function countWords(text: string): number {
  // `test` moves a global regex along without making a match object or a string per word
  // (`matchAll` made both: 40 % more CPU); a fresh regex each call, so no state is shared.
  const word = /[\p{L}\p{N}]+/gu;
  const src = segmentCJK(text);
  let n = 0;
  while (word.test(src)) n++;
  return n;
}

/** Word counts of a text, for TF-IDF. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of words(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}
