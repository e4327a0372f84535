import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { toFtsMatch } from "../stores/fts5_match.ts";
import { parseQuery, positiveTerms } from "./query.ts";

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
