/**
 * Language of a document: codes normalised to ISO 639-1, and detection from a
 * sample of prose.
 *
 * Detection uses npm:franc-min (trigram models of 82 languages), after a script
 * test for Japanese, Chinese and Korean, which franc cannot tell apart well.
 *
 * @module
 */
import { franc } from "franc-min";
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

/**
 * Detect the language of a text: a script test for Japanese (kana), Korean
 * (Hangul) and Chinese (Han only), then franc-min for the rest.
 *
 * @param text a sample of prose (the first ~2,000 characters are enough)
 * @returns an ISO 639-1 code where one exists, else ISO 639-3, or `und`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(detectLanguage("Dies ist ein kurzer deutscher Text über das Wetter in Berlin."), "de");
 * ```
 */
export function detectLanguage(text: string): string {
  const sample = text.slice(0, 4000);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return "und";
  const kana = sample.match(KANA_G)?.length ?? 0;
  const han = sample.match(HAN_G)?.length ?? 0;
  const hangul = sample.match(HANGUL_G)?.length ?? 0;
  // Each CJK character weighs like a short word of Latin letters.
  if ((kana + han + hangul) * 3 >= letters - kana - han - hangul) {
    if (kana >= 3 && kana * 20 >= han) return "ja";
    if (hangul > han) return "ko";
    if (han > 0) return "zh";
  }
  return normalizeLanguage(franc(sample, { minLength: 40 }));
}
