/**
 * Hostile requests: arguments generated with fast-check from the tools' zod schemas
 * (through their JSON Schema), mixing valid values, edge values, wrong types, oversized
 * strings, path attacks, query-syntax debris and catastrophic regular expressions, sent to
 * the real MCP server over stdio by a real SDK client. Every answer must be a result or a
 * structured error; the server must never crash, hang, or answer beyond a size bound.
 *
 * @module
 */
import fc from "fast-check";
import { z } from "zod";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { schemas, type ToolName } from "../../server/tools/mod.ts";
import { callTool, ERROR_CODES, memoryOf, percentile } from "./_helpers.ts";

/** Largest answer accepted: grep's worst case is 100 matches x 101 lines x 500 chars. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

type Json = Record<string, unknown>;

/** Values the generators draw from, beyond random ones. */
export interface FuzzPools {
  docIds: string[];
  libraries: string[];
  /** More `path`, `from` and `to` values (the write tools' files, links leading out). */
  paths?: string[];
}

const PATHS = [
  "../../../etc/passwd",
  "/etc/passwd",
  "lib/%2e%2e/%2e%2e/etc/passwd",
  "lib/..%2f..%2fetc",
  "lib\\..\\..\\x",
  "lib/a\0b",
  "",
  " ",
  ".",
  "..",
  "/",
  "~",
  "file:///etc/passwd",
  "CON",
  "a".repeat(5000),
];
const QUERIES = [
  '"',
  '""',
  '"unclosed phrase',
  "-",
  "+",
  "|",
  "a|b|",
  "-only -excluded",
  "*",
  "NEAR(a b)",
  "AND OR NOT",
  "title:x",
  "^x",
  "(",
  ")",
  "{a}",
  "日本語のテキスト",
  "Grüße",
  "\u0000",
  "\ud800",
  "x".repeat(2000),
  "sqlite",
  "the of and",
];
const REGEXES = [
  "(a+)+$",
  "(a|aa)+$",
  "(x+x+)+y",
  "^(\\w+\\s?)*$",
  "(",
  "[",
  "\\",
  "a{99999999}",
  "(?<n>a)\\k<n>",
  "\\p{L}+",
  "(?=a)*",
  ".*.*.*.*.*=",
  "^$",
  "",
  "[\\s\\S]",
];
/** URLs `fetch` must refuse: other schemes, no host, private and metadata addresses. */
const URLS = [
  "file:///etc/passwd",
  "ftp://example.org/",
  "gopher://127.0.0.1:70/",
  "javascript:alert(1)",
  "http://",
  "http:///x",
  "http://user:pw@127.0.0.1/",
  "http://127.0.0.1/",
  "http://[::1]/",
  "http://169.254.169.254/latest/meta-data/",
  "http://0x7f.1/",
  "http://2130706433/",
  "http://[::ffff:127.0.0.1]/",
  "http://localhost/",
  "https://10.0.0.1/",
  "data:text/html,<b>x</b>",
];
const GLOBS = ["*", "**", "[", "[!]", "lib/*", "*/*/*/*", "?", "\\", "[a-", "*".repeat(500)];
const DATES = [
  "2024-01-01",
  "2024-13-45",
  "yesterday",
  "",
  "2024-01-01T25:00:00Z",
  "0000-00-00",
  "9".repeat(40),
];

const WRONG: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(-1, 0, 1.5, -0, 2 ** 53, 1e308, -1e308),
  fc.string({ maxLength: 20 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

interface Prop {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Prop;
}

function stringFor(key: string, p: Prop, pools: FuzzPools): fc.Arbitrary<string> {
  const random = fc.string({
    minLength: p.minLength ?? 0,
    maxLength: Math.min(p.maxLength ?? 64, 64),
    unit: "grapheme",
  });
  const over = fc.constant("z".repeat((p.maxLength ?? 64) + 1));
  const byKey: Record<string, string[]> = {
    doc_id: [...pools.docIds, ...PATHS],
    doc_ids: [...pools.docIds, ...PATHS],
    library: [...pools.libraries, ...PATHS],
    query: QUERIES,
    pattern: REGEXES,
    path_glob: GLOBS,
    modified_after: DATES,
    modified_before: DATES,
    since: DATES,
    until: DATES,
    commit: [
      "HEAD",
      "HEAD~1",
      "HEAD~99",
      "main",
      "--output=/tmp/x",
      "-p",
      "a..b",
      "@{u}",
      "0000000",
    ],
    patterns: [...PATHS, "%", "_", "%%", "lib", "a"],
    expand: ["1", "2.1", "0", "-1", "1.1.1.1.1.1", "x"],
    // The seed tools: folders, names, link ends, front-matter fields.
    path: [
      ...pools.libraries,
      ...pools.libraries.map((l) => `${l}/sub`),
      ...PATHS,
      ...(pools.paths ?? []),
    ],
    from: [...pools.docIds, ...PATHS, ...(pools.paths ?? [])],
    to: [...pools.docIds, ...PATHS, ...(pools.paths ?? [])],
    queries: QUERIES,
    field: ["tags", "aliases", "status", "", "x".repeat(65), "__proto__"],
    // The write tools: text that is in the files or nearly, version tags, base64.
    old_text: ["the", "The", "a", "\n", "  ", "\u201cthe\u201d", "Evil", "x".repeat(60)],
    new_text: ["", "new text", "\n\n", "\u0000", "# Title\n"],
    text: ["", "# Note\n\nText.\n", "\u0000\u0001", "---\nx: 1\n---\n"],
    if_match: ["0000000000000000", "e3b0c44298fc1c14", "ZZZZZZZZZZZZZZZZ", ""],
    base64: ["", "AAEC", "not base64!", "====", "YQ"],
    message: ["", "msg", "\n"],
    url: URLS,
  };
  const pool = byKey[key];
  return pool?.length
    ? fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...pool) },
      { weight: 2, arbitrary: random },
      { weight: 1, arbitrary: over },
    )
    : fc.oneof({ weight: 4, arbitrary: random }, { weight: 1, arbitrary: over });
}

function valueFor(key: string, p: Prop, pools: FuzzPools): fc.Arbitrary<unknown> {
  let good: fc.Arbitrary<unknown>;
  if (p.enum) good = fc.constantFrom(...p.enum);
  else if (p.type === "integer") {
    const lo = p.minimum ?? -1000;
    const hi = Math.min(p.maximum ?? 100_000, 1_000_000);
    good = fc.oneof(
      fc.integer({ min: lo, max: hi }),
      fc.constantFrom(lo, hi, lo - 1, hi + 1, p.maximum ?? 2 ** 53),
    );
  } else if (p.type === "boolean") good = fc.boolean();
  else if (p.type === "array") {
    const item = valueFor(key, p.items ?? {}, pools);
    good = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.array(item, {
          minLength: p.minItems ?? 0,
          maxLength: Math.min(p.maxItems ?? 5, 25),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.array(item, {
          minLength: (p.maxItems ?? 5) + 1,
          maxLength: (p.maxItems ?? 5) + 2,
        }),
      },
    );
  } else good = stringFor(key, p, pools);
  return fc.oneof({ weight: 30, arbitrary: good }, { weight: 1, arbitrary: WRONG });
}

/** Arguments for one tool, generated from its schema. */
export function argsFor(name: ToolName, pools: FuzzPools): fc.Arbitrary<Json> {
  const js = z.toJSONSchema(z.object(schemas[name]).strict(), { io: "input" }) as {
    properties: Record<string, Prop>;
    required?: string[];
  };
  const required = new Set(js.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, p] of Object.entries(js.properties)) record[k] = valueFor(k, p, pools);
  // Any subset of the fields, required ones included: validation errors.
  const base = fc.record(record, { requiredKeys: [] });
  const full = fc.record(record, { requiredKeys: [...required] });
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), WRONG, { maxKeys: 2 });
  return fc.oneof(
    { weight: 7, arbitrary: full },
    { weight: 2, arbitrary: base },
    { weight: 1, arbitrary: fc.tuple(full, extra).map(([a, e]) => ({ ...e, ...a })) },
  );
}

/** Statistics of a fuzz run. */
export interface FuzzReport {
  cases: number;
  ok: number;
  errors: Record<string, number>;
  /** Answers that broke the contract (empty when all is well). */
  failures: string[];
  maxBytes: number;
  p50: number;
  p99: number;
  peakRss: number;
}

const TOOLS = Object.keys(schemas) as ToolName[];

/** Send `runs` generated requests to a connected server; checks every answer. */
export async function fuzz(
  client: Client,
  serverPid: number,
  pools: FuzzPools,
  runs: number,
  seed = Date.now() % 2 ** 31,
  tools: readonly ToolName[] = TOOLS,
): Promise<FuzzReport> {
  const r: FuzzReport = {
    cases: 0,
    ok: 0,
    errors: {},
    failures: [],
    maxBytes: 0,
    p50: 0,
    p99: 0,
    peakRss: 0,
  };
  const times: number[] = [];
  const arb = fc.constantFrom(...tools).chain((t) => argsFor(t, pools).map((a) => [t, a] as const));
  await fc.assert(
    fc.asyncProperty(arb, async ([tool, args]) => {
      r.cases++;
      const what = `${tool} ${JSON.stringify(args).slice(0, 300)}`;
      const t0 = performance.now();
      let res;
      try {
        res = await callTool(client, tool, args as Json);
      } catch (e) {
        r.failures.push(`${what}: ${(e as Error).message}`);
        return false;
      }
      times.push(performance.now() - t0);
      const text = (res.content ?? []).map((c) => c.text ?? "").join("");
      const bytes = text.length +
        (res.structuredContent ? JSON.stringify(res.structuredContent).length : 0);
      r.maxBytes = Math.max(r.maxBytes, bytes);
      if (bytes > MAX_RESPONSE_BYTES) r.failures.push(`${what}: ${bytes} bytes`);
      if (res.isError) {
        let code = "UNPARSABLE";
        try {
          const body = JSON.parse(text).error;
          code = body.code;
          if (typeof body.message !== "string") code = "NO_MESSAGE";
          if (/\n\s+at /.test(body.message + (body.hint ?? ""))) code = "STACK_TRACE";
        } catch { /* counted below */ }
        r.errors[code] = (r.errors[code] ?? 0) + 1;
        if (!ERROR_CODES.has(code)) {
          r.failures.push(`${what}: error ${code}: ${text.slice(0, 300)}`);
        }
      } else {
        r.ok++;
        if (!text) r.failures.push(`${what}: empty answer`);
      }
      if (r.cases % 25 === 0) r.peakRss = Math.max(r.peakRss, memoryOf(serverPid)?.rss ?? 0);
      return r.failures.length === 0;
    }),
    { numRuns: runs, seed, endOnFailure: true },
  ).catch((e) => {
    if (!r.failures.length) r.failures.push(String((e as Error).message).slice(0, 1000));
  });
  r.p50 = percentile(times, 50);
  r.p99 = percentile(times, 99);
  r.peakRss = Math.max(r.peakRss, memoryOf(serverPid)?.hwm ?? 0);
  return r;
}
