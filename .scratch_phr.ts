import { prepareQuery } from "./search/query.ts";
import { devQuestions } from "./bench/agent_cost.ts";
import { passageMatch } from "./stores/fts5_passages.ts";
import { parseMatch } from "./stores/postgres_match.ts";
import { Tokenizer } from "./stores/postgres_tokens.ts";
const t = new Tokenizer();
const qs = (await devQuestions("/work/wt/shared")).map((q) => q.question);
let multi = 0;
for (const q of qs) {
  const m = passageMatch(prepareQuery(q, 10).parsed)!;
  const ph = parseMatch(m).phrases.map((p) => t.phrase(p)).filter((x) => x.length > 1);
  if (ph.length) { multi++; console.log(ph.map((x) => x.join(" ")).join(" | ")); }
}
console.log(multi, "of", qs.length);
