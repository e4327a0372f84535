import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { toFtsMatch } from "../stores/fts5_match.ts";
import { ToolError } from "../core/types.ts";
import {
  MAX_QUERY_CHARS,
  MAX_QUERY_WORDS,
  parseQuery,
  positiveTerms,
  prepareQuery,
} from "./query.ts";

// The parsed form as the FTS5 keyword index turns it into a MATCH expression.
const match = (q: string) => toFtsMatch(parseQuery(q));

Deno.test("parseQuery() keeps plain terms optional", () => {
  const q = parseQuery("docker  deployment");
  assertEquals(q.optional.map((u) => u.alternatives[0]?.text), ["docker", "deployment"]);
  assertEquals(q.required, []);
  assertEquals(match("docker deployment"), '"docker" OR "deployment"');
});

Deno.test("parseQuery() keeps quoted phrases and requires them", () => {
  const q = parseQuery('install "reverse proxy"');
  assertEquals(q.required, [{ alternatives: [{ kind: "phrase", text: "reverse proxy" }] }]);
  assertEquals(
    match('install "reverse proxy"'),
    '"reverse proxy" AND ("reverse proxy" OR "install")',
  );
});

Deno.test("parseQuery() reads + as required and - as excluded", () => {
  const q = parseQuery('+nginx -apache -"old docs" cache');
  assertEquals(q.required.map((u) => u.alternatives[0]?.text), ["nginx"]);
  assertEquals(q.excluded.map((u) => u.alternatives[0]?.text), ["apache", "old docs"]);
  assertEquals(
    match('+nginx -apache -"old docs" cache'),
    '("nginx" AND ("nginx" OR "cache")) NOT ("apache" OR "old docs")',
  );
});

Deno.test("parseQuery() groups a|b alternatives into one unit", () => {
  assertEquals(parseQuery("docker|podman").optional, [{
    alternatives: [{ kind: "term", text: "docker" }, { kind: "term", text: "podman" }],
  }]);
  assertEquals(match("docker | podman"), '("docker" OR "podman")');
  assertEquals(
    match('+docker|"pod man" build'),
    '("docker" OR "pod man") AND (("docker" OR "pod man") OR "build")',
  );
  assertEquals(match("x -a|b"), '("x") NOT ("a" OR "b")');
});

Deno.test("parseQuery() closes a stray quote at the end", () => {
  assertEquals(
    parseQuery('"unclosed phrase').required[0]?.alternatives[0]?.text,
    "unclosed phrase",
  );
  assertEquals(match('a"b'), '"a""b"');
  assertEquals(match('""'), undefined);
});

Deno.test("positiveTerms() lists required and optional texts, without stop words", () => {
  assertEquals(positiveTerms(parseQuery('the +nginx "reverse proxy" -apache a|b')), [
    "nginx",
    "reverse proxy",
    "b",
  ]);
  assertEquals(positiveTerms(parseQuery("the")), ["the"]);
});

Deno.test("parseQuery() reads --option and -1 as plain terms, not exclusions", () => {
  const q = parseQuery("default --window -1 -depth");
  assertEquals(q.optional.map((u) => u.alternatives[0]!.text), ["default", "window", "1"]);
  assertEquals(q.excluded.map((u) => u.alternatives[0]!.text), ["depth"]);
});

Deno.test("parseQuery() counts a repeated unit once, whatever its case or punctuation", () => {
  // The 2 KB query: 499 copies of one word were 499 FTS5 phrases (27 s).
  const the = parseQuery("the ".repeat(499));
  assertEquals(the.optional.length, 1);
  assertEquals(toFtsMatch(the), '"the"');
  const texts = parseQuery("The the, THE (the docker Docker").optional.map((u) =>
    u.alternatives[0]!.text
  );
  assertEquals(texts, ["The", "docker"]);
  assertEquals(match('"big file" "Big File" +sqlite +SQLite'), '"big file" AND "sqlite"');
  assertEquals(match("a|b b|a a|b"), '("a" OR "b") OR ("b" OR "a")');
  // the same words in another kind of unit stay: required, excluded, optional
  assertEquals(match("zstd -zstd"), '("zstd") NOT "zstd"');
});

Deno.test("parseQuery() reads * as punctuation: a* x666 is the word a once", () => {
  const q = parseQuery("a* ".repeat(666));
  assertEquals(q.optional.length, 1);
  assertEquals(toFtsMatch(q), '"a*"');
  // the same word as `a`: no prefix expansion happens anywhere
  assertEquals(parseQuery("a* a").optional.length, 1);
});

/** The ToolError a query gets from prepareQuery. */
function refusal(text: string): ToolError {
  let err: unknown;
  try {
    prepareQuery(text, 10);
  } catch (e) {
    err = e;
  }
  if (!(err instanceof ToolError)) throw new Error(`no ToolError for ${text.slice(0, 40)}`);
  return err;
}

Deno.test("prepareQuery() refuses a query of more words than the bound, naming it", () => {
  const words = Array.from({ length: MAX_QUERY_WORDS + 1 }, (_, i) => `word${i}`);
  const err = refusal(words.join(" "));
  assertEquals(err.code, "INVALID_ARGUMENT");
  assertEquals(err.message, `query has 33 words; a query holds at most ${MAX_QUERY_WORDS} words`);
  // the words of a phrase and of alternatives count too, a repeated unit does not
  assertEquals(refusal(`"${"the ".repeat(MAX_QUERY_WORDS + 1)}"`).code, "INVALID_ARGUMENT");
  assertEquals(refusal(words.join("|")).code, "INVALID_ARGUMENT");
  const atBound = words.slice(0, MAX_QUERY_WORDS).join(" ");
  assertEquals(prepareQuery(`${atBound} ${atBound}`, 10).parsed.optional.length, MAX_QUERY_WORDS);
});

Deno.test("prepareQuery() refuses a query longer than the bound, naming it", () => {
  const err = refusal("x".repeat(MAX_QUERY_CHARS + 1));
  assertEquals(err.code, "INVALID_ARGUMENT");
  assertEquals(err.message, "query is 2001 characters long; a query holds at most 2000");
  assertThrows(() => prepareQuery("the ".repeat(501), 10), ToolError);
  assertEquals(prepareQuery("the ".repeat(499), 10).parsed.optional.length, 1);
});
