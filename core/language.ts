/**
 * Language of a document: codes normalised to ISO 639-1, and detection from a
 * sample of prose.
 *
 * Detection uses npm:franc-min's trigram models of 82 languages (scored by
 * `core/franc_scores.ts`, the same scores as `francAll` for less CPU), after a script
 * test for Japanese, Chinese and Korean, which franc cannot tell apart well.
 *
 * @module
 */
import { francScores } from "./franc_scores.ts";
import { HAN, HANGUL, KANA } from "./tokenize.ts";

const KANA_G = new RegExp(`[${KANA}]`, "g");
const HAN_G = new RegExp(`[${HAN}]`, "g");
/** Hangul syllables and the conjoining jamo (U+1100–11FF), which only Korean uses. */
const HANGUL_G = new RegExp(`[${HANGUL}\\u1100-\\u11ff]`, "g");

const ISO3: Record<string, string> = {
  eng: "en",
  deu: "de",
  ger: "de",
  fra: "fr",
  fre: "fr",
  spa: "es",
  ita: "it",
  por: "pt",
  nld: "nl",
  dut: "nl",
  rus: "ru",
  ukr: "uk",
  pol: "pl",
  ces: "cs",
  cze: "cs",
  jpn: "ja",
  cmn: "zh",
  zho: "zh",
  chi: "zh",
  kor: "ko",
  arb: "ar",
  ara: "ar",
  hin: "hi",
  ben: "bn",
  ind: "id",
  zlm: "ms",
  msa: "ms",
  vie: "vi",
  tha: "th",
  tur: "tr",
  pes: "fa",
  fas: "fa",
  urd: "ur",
  ron: "ro",
  hun: "hu",
  ell: "el",
  bul: "bg",
  swe: "sv",
  dan: "da",
  nob: "nb",
  nor: "no",
  fin: "fi",
  cat: "ca",
  hrv: "hr",
  srp: "sr",
  bos: "bs",
  slk: "sk",
  slv: "sl",
  bel: "be",
  kaz: "kk",
  uzn: "uz",
  azj: "az",
  tgl: "tl",
  swh: "sw",
  jav: "jv",
  sun: "su",
  mar: "mr",
  tel: "te",
  tam: "ta",
  guj: "gu",
  kan: "kn",
  mal: "ml",
  pan: "pa",
  mya: "my",
  amh: "am",
  hau: "ha",
  yor: "yo",
  ibo: "ig",
  zul: "zu",
  som: "so",
  kin: "rw",
  run: "rn",
  nya: "ny",
  lin: "ln",
  plt: "mg",
  sin: "si",
  npi: "ne",
  heb: "he",
};

/**
 * A language code normalised to ISO 639-1 where one exists (`en-US` → `en`,
 * `deu` → `de`), else kept as ISO 639-3; `und` for nothing usable.
 *
 * @param code a BCP 47 tag or ISO 639 code
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(normalizeLanguage("en-US"), "en");
 * ```
 */
export function normalizeLanguage(code: string | undefined): string {
  const primary = (code ?? "").trim().toLowerCase().split(/[-_]/)[0] ?? "";
  if (/^[a-z]{2}$/.test(primary)) return primary;
  if (/^[a-z]{3}$/.test(primary)) return ISO3[primary] ?? primary;
  return "und";
}

/** Web addresses, e-mail addresses and tags: names, not words of a language. */
const NAMES = /\b[a-z][\w+.-]*:\/\/\S+|\bwww\.\S+|<[^<>\s]*>|\S+@\S+\.\S+/gi;
/** `key = value` and `--option`: configuration and command lines. */
const SETTING = /^\s*(?:[-\w.]+\s*=|--?\w)/;
/** Copyright lines: mostly people's names and years. */
const COPYRIGHT = /copyright|\(c\)|©|all rights reserved/i;
/** A word of prose, with the punctuation around it. */
const WORD = /^[("'“‘«]*\p{L}[\p{L}\p{M}'’-]*[)"'”’».,;:!?]*$/u;
/** A word of three letters or more that does not start with a capital. */
const SMALL_WORD = /^[("'“‘«]*[^\p{Lu}\p{Lt}\P{L}]\p{L}{2}/u;
/** Letters of scripts written without spaces between words (Thai, Lao, Burmese, Khmer). */
const UNSPACED = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]/gu;
/** A number, with the punctuation around it: neither prose nor code. */
const NUMBER = /^[(]?[\d.,:/%-]+[).,;:]?$/;

/** Prose characters franc reads at most. */
const SAMPLE = 2000;
/** Fewest letters of prose a guess needs; with less the language is `und`. */
const MIN_LETTERS = 80;
/**
 * franc's scores run from 1 for its best guess down. English technical prose (change logs,
 * READMEs full of names and identifiers) often scores a hair under French, Dutch or
 * Uzbek: on /usr/share/doc those guesses were within 0.02 of English, while real French
 * and German pages of the corpus lead English by 0.03 or more. A guess that close to
 * English is English, the language of most technical documents.
 */
const ENGLISH_MARGIN = 0.02;
/** A best guess closer than this to the runner-up (neither English) is `und`. */
const MARGIN = 0.005;

/**
 * The prose of a text, for language detection: the words of lines that read as sentences
 * (four words or more, two of them not capitalised, and at least 80% of their tokens
 * words, not code, paths or identifiers), without web and e-mail addresses, numbers,
 * settings (`key = value`), command-line options and copyright lines. Thai, Lao, Khmer
 * and Burmese, written without spaces between words, are kept as they are.
 *
 * @param text any text
 * @returns the prose lines joined, at most about 2,000 characters
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const text = "Copyright: 2005, Luk Claes\nSee https://curl.se/ for the whole story of it.\nport = 80";
 * assert.equal(proseSample(text), "See for the whole story of it.");
 * ```
 */
export function proseSample(text: string): string {
  const out: string[] = [];
  let size = 0;
  for (const raw of text.split(/\n|(?<=[.!?])\s+/)) {
    if (size >= SAMPLE) break;
    if (SETTING.test(raw) || COPYRIGHT.test(raw)) continue;
    if ((raw.match(UNSPACED)?.length ?? 0) >= 20) {
      out.push(raw.trim());
      size += raw.length + 1;
      continue;
    }
    const tokens = raw.replace(NAMES, " ").split(/\s+/).filter((t) => t && !NUMBER.test(t));
    const words = tokens.filter((t) => WORD.test(t));
    // code, paths, identifiers and hashes are tokens of other shapes
    if (words.length < 4 || words.length < tokens.length * 0.8) continue;
    // a sentence has small words; a line of capitalised words is names or a title
    if (words.filter((w) => SMALL_WORD.test(w)).length < 2) continue;
    const line = words.join(" ");
    out.push(line);
    size += line.length + 1;
  }
  return out.join("\n");
}

/**
 * Detect the language of a text: a script test for Japanese (kana), Korean
 * (Hangul) and Chinese (Han only), then franc-min on the text's prose (see
 * {@link proseSample}). Text with too little prose, or whose best guess is a close call,
 * is `und`: code, configuration, lists of names and licences are no language.
 *
 * @param text the document's text (its first ~20,000 characters are enough)
 * @returns an ISO 639-1 code where one exists, else ISO 639-3, or `und`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const de = "Dies ist ein kurzer deutscher Text über das Wetter in Berlin. Morgen regnet es " +
 *   "dort wieder den ganzen Tag.";
 * assert.equal(detectLanguage(de), "de");
 * assert.equal(detectLanguage("CFLAGS = -O2 -g\nLDFLAGS = -lz\nall: main.o util.o"), "und");
 * ```
 */
export function detectLanguage(text: string): string {
  const head = text.slice(0, 4000);
  const letters = head.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return "und";
  const kana = head.match(KANA_G)?.length ?? 0;
  const han = head.match(HAN_G)?.length ?? 0;
  const hangul = head.match(HANGUL_G)?.length ?? 0;
  // Each CJK character weighs like a short word of Latin letters.
  if ((kana + han + hangul) * 3 >= letters - kana - han - hangul) {
    if (kana >= 3 && kana * 20 >= han) return "ja";
    if (hangul > han) return "ko";
    if (han > 0) return "zh";
  }
  const prose = proseSample(text.slice(0, 50_000));
  if ((prose.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS) return "und";
  const all = francScores(prose, 40);
  const [best, next] = all;
  if (!best || best[0] === "und") return "und";
  if (best[0] !== "eng") {
    const english = all.find(([code]) => code === "eng");
    if (english && best[1] - english[1] < ENGLISH_MARGIN) return "en";
    if (next && best[1] - next[1] < MARGIN) return "und";
  }
  return normalizeLanguage(best[0]);
}
