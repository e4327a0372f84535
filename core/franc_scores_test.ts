import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import fc from "fast-check";
import { francAll } from "franc-min";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { francScores } from "./franc_scores.ts";
import { proseSample } from "./language.ts";

const SAMPLES = [
  "Dies ist ein kurzer deutscher Text über das Wetter in Berlin. Morgen regnet es dort wieder.",
  "Ceci est un court texte en français sur la météo à Paris, où il pleuvra encore demain.",
  "Это короткий русский текст о погоде в Москве. Завтра там снова будет дождь весь день.",
  "هذا نص عربي قصير عن الطقس في القاهرة. غدا ستمطر هناك مرة أخرى طوال اليوم.",
  "Αυτό είναι ένα σύντομο ελληνικό κείμενο για τον καιρό στην Αθήνα αύριο το πρωί.",
  "זהו טקסט קצר בעברית על מזג האוויר בירושלים. מחר ירד שם שוב גשם כל היום.",
  "这是一段关于北京天气的简短中文文本。明天那里又会下一整天的雨。",
  "1234 5678 90 -- ++ == 1234 5678 90 -- ++ == 1234 5678 90 -- ++ ==",
  "the the the the the the the the the the the the the the the the the the",
  "short",
  "",
];

Deno.test("francScores() gives francAll's languages, order and scores for texts of many scripts", () => {
  for (const text of SAMPLES) {
    for (const min of [10, 40]) {
      assertEquals(francScores(text, min), francAll(text, { minLength: min }));
    }
  }
  assertEquals(francScores(SAMPLES[0]!, 10)[0]![0], "deu");
  assertEquals(francScores(SAMPLES[2]!, 10)[0]![0], "rus");
});

Deno.test("francScores() equals francAll on the prose of every text, Markdown and HTML file of the small corpus", async () => {
  const root = await smallCorpus();
  let compared = 0;
  for (const dir of ["text", "markdown", "html"]) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })) {
      if (![".txt", ".md", ".html"].includes(extname(name))) continue;
      const text = new TextDecoder().decode(readFileSync(join(root, dir, name))).slice(0, 50_000);
      for (const sample of [proseSample(text), text]) {
        assertEquals(francScores(sample, 40), francAll(sample, { minLength: 40 }), name);
        compared++;
      }
    }
  }
  assert(compared >= 100, `only ${compared} texts compared`);
});

Deno.test("francScores() equals francAll on random texts of mixed scripts, repeats and long runs", () => {
  const piece = fc.constantFrom(
    "the ",
    "und ",
    "ción ",
    "на ",
    "في ",
    "的",
    "ελ",
    "ש",
    " ",
    "\n",
    "42",
    "é",
    "--",
  );
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 900 }),
      fc.integer({ min: 0, max: 50 }),
      (parts, min) => {
        const text = parts.join("");
        assertEquals(francScores(text, min), francAll(text, { minLength: min }));
      },
    ),
    { numRuns: 300 },
  );
});
