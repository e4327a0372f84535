/**
 * franc-min's language scores (`francAll`), the same numbers for a fifth of the CPU.
 *
 * `francAll` sums, for each of the ~60 languages of a script, a distance over the sample's
 * trigrams: one look-up of each trigram in each language's model, an object of 300 keys in
 * dictionary mode (about 18,000 look-ups for a 2,000-character sample, 3-5 ms with the
 * extraction processes' V8 flags, a third of the measure step of a small text file). Here
 * each script's models are turned once into one map from a trigram to the languages that
 * have it and its rank there, so a sample's trigram is looked up once: every language
 * starts at the distance of a trigram it lacks, and the languages that have it are given
 * the difference of ranks instead. The sums are integers: equal to franc's, as are the
 * order of the languages (franc's, sorted stably) and the normalised scores.
 *
 * The models (`data.js`), the scripts' expressions (`expressions.js`) and the sample's
 * trigrams (`trigram-utils`, as franc counts them) are franc's own; only the loop over
 * them is ours. `core/franc_scores_test.ts` compares the two on real and made-up texts.
 *
 * @module
 */
import { data } from "franc-min/data.js";
import { expressions } from "franc-min/expressions.js";
import { trigrams } from "trigram-utils";

/** franc's longest sample (characters). */
const MAX_LENGTH = 2048;
/** franc's distance of a trigram that a language's model lacks. */
const MAX_DIFFERENCE = 300;

/** A script's models: its languages, and per trigram the languages that have it. */
interface ScriptModels {
  /** Language codes, in franc's order. */
  names: string[];
  /** Trigram → pairs of (language index, rank in that language's model). */
  ranks: Map<string, number[]>;
}

const models = new Map<string, ScriptModels>();

/** The models of `script` (a key of franc's data), made the first time they are asked for. */
function modelsOf(script: string): ScriptModels {
  let m = models.get(script);
  if (m) return m;
  const languages = data[script]!;
  const names = Object.keys(languages);
  const ranks = new Map<string, number[]>();
  names.forEach((name, lang) => {
    const seen = new Set<string>();
    // A trigram listed twice has its first rank, as franc's model keeps it.
    languages[name]!.split("|").forEach((trigram, rank) => {
      if (seen.has(trigram)) return;
      seen.add(trigram);
      const pairs = ranks.get(trigram);
      if (pairs) pairs.push(lang, rank);
      else ranks.set(trigram, [lang, rank]);
    });
  });
  m = { names, ranks };
  models.set(script, m);
  return m;
}

/** The script whose characters are the largest share of `value` (franc's `getTopScript`). */
function topScript(value: string): [string | undefined, number] {
  let top: string | undefined;
  let topCount = -1;
  for (const [script, expression] of Object.entries(expressions)) {
    const count = (value.match(expression)?.length ?? 0) / value.length || 0;
    if (count > topCount) {
      topCount = count;
      top = script;
    }
  }
  return [top, topCount];
}

/**
 * The trigrams of `value` with their counts, in the order franc ranks them (fewest first;
 * ties in the order they first occur).
 */
function counted(value: string): [string, number][] {
  const counts = new Map<string, number>();
  for (const t of trigrams(value)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].sort((a, b) => a[1] - b[1]);
}

/**
 * Every language franc-min guesses for `value` with its score (1 for the best, down),
 * best first: what `francAll(value, { minLength })` returns.
 *
 * @param value the text (its first 2,048 characters are read)
 * @param minLength shorter texts are `und`
 * @returns pairs of an ISO 639-3 code (or `und`) and its score
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { francAll } from "franc-min";
 * const text = "The quick brown fox jumps over the lazy dog near the river bank today.";
 * assert.deepEqual(francScores(text, 10), francAll(text, { minLength: 10 }));
 * assert.equal(francScores(text, 10)[0]![0], "eng");
 * ```
 */
export function francScores(value: string, minLength: number): [string, number][] {
  if (!value || value.length < minLength) return [["und", 1]];
  value = value.slice(0, MAX_LENGTH);
  const [script, share] = topScript(value);
  if (!script || !(script in data)) {
    // A script of one language (or none): franc names it without trigrams.
    return !script || share === 0 ? [["und", 1]] : [[script, 1]];
  }
  const { names, ranks } = modelsOf(script);
  const tuples = counted(value);
  const distance = new Array<number>(names.length).fill(tuples.length * MAX_DIFFERENCE);
  for (const [trigram, count] of tuples) {
    const pairs = ranks.get(trigram);
    if (!pairs) continue;
    for (let i = 0; i < pairs.length; i += 2) {
      distance[pairs[i]!]! += Math.abs(count - pairs[i + 1]! - 1) - MAX_DIFFERENCE;
    }
  }
  const out = names.map((name, i): [string, number] => [name, distance[i]!])
    .sort((a, b) => a[1] - b[1]);
  if (out.length === 0) return [["und", 1]];
  const min = out[0]![1];
  const max = value.length * MAX_DIFFERENCE - min;
  for (const row of out) row[1] = 1 - (row[1] - min) / max || 0;
  return out;
}
