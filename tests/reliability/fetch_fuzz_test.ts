/**
 * `fetch` fuzzed with writing on: arguments generated from its schema (`argsFor`, the
 * hostile pools of `fuzz.ts`), and URLs of non-public addresses spelled every way a URL
 * can spell them (decimal, hex, octal and short IPv4; IPv4-mapped, NAT64 and plain IPv6;
 * names that resolve to loopback), aimed at a loopback server that counts its requests.
 * Every answer is a structured error with a known code, the server sees no request, and
 * no file is written.
 */
import { join } from "node:path";
import fc from "fast-check";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { createServer } from "../../server/mcp.ts";
import { callTool, ERROR_CODES, errorOf } from "./_helpers.ts";
import { argsFor } from "./fuzz.ts";

const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 200);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 424242);

const byte = fc.integer({ min: 0, max: 255 });

/** A non-public IPv4 address as four numbers. */
const privateV4: fc.Arbitrary<number[]> = fc.oneof(
  fc.tuple(fc.constant(127), byte, byte, byte),
  fc.tuple(fc.constant(10), byte, byte, byte),
  fc.tuple(fc.constant(0), byte, byte, byte),
  fc.tuple(fc.constant(169), fc.constant(254), byte, byte),
  fc.tuple(fc.constant(192), fc.constant(168), byte, byte),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), byte, byte),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), byte, byte),
  fc.tuple(fc.integer({ min: 224, max: 255 }), byte, byte, byte),
).map((t) => [...t]);

const hex = (n: number, w = 0) => n.toString(16).padStart(w, "0");

/** The spellings of one IPv4 address in a URL's host. */
function spellings(o: number[]): string[] {
  const [a, b, c, d] = o as [number, number, number, number];
  const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  const hi = hex((a << 8) + b), lo = hex((c << 8) + d);
  return [
    o.join("."),
    String(n),
    `0x${hex(n)}`,
    o.map((x) => `0x${hex(x)}`).join("."),
    o.map((x) => `0${x.toString(8)}`).join("."),
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `[::ffff:${o.join(".")}]`,
    `[::ffff:${hi}:${lo}]`,
    `[0:0:0:0:0:ffff:${hi}:${lo}]`,
    `[64:ff9b::${o.join(".")}]`,
  ];
}

const privateV6 = fc.oneof(
  fc.constantFrom("[::1]", "[::]", "[0:0:0:0:0:0:0:1]", "[fe80::1]", "[ff02::1]"),
  fc.tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.integer({ min: 0, max: 0xffff })).map((
    [x, y],
  ) => `[${hex(x)}::${hex(y)}]`),
);

/** A URL of a non-public address aimed at `port` (or a default port). */
function privateUrl(port: number): fc.Arbitrary<string> {
  const host = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(privateV4, fc.nat()).map(([o, i]) => spellings(o)[i % 11]!) },
    { weight: 2, arbitrary: privateV6 },
    { weight: 1, arbitrary: fc.constantFrom("localhost", "LocalHost", "127.1", "0") },
  );
  return fc.record({
    scheme: fc.constantFrom("http", "https", "HTTP", "hTtP"),
    host,
    port: fc.constantFrom(`:${port}`, "", ":80", ":443"),
    path: fc.constantFrom("/", "/latest/meta-data/", "/a?b=c", "", "/%2e%2e/"),
  }).map((u) => `${u.scheme}://${u.host}${u.port}${u.path}`);
}

Deno.test({
  name: `fetch fuzz: ${RUNS} schema calls and ${RUNS} private-address URLs, all refused`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const seen: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      seen.push(req.url);
      return new Response("<title>x</title>", { headers: { "content-type": "text/html" } });
    });
    const base = await Deno.makeTempDir({ prefix: "shelfmark-fetch-fuzz-" });
    const lib = join(base, "lib");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nText.\n");
    await using t = await openTestShelf({ base, folders: [lib], write: ["lib"] });
    await t.shelf.index();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createServer(t.shelf).connect(a);
    const client = new Client({ name: "fetch-fuzz", version: "1" });
    await client.connect(b);
    const codes: Record<string, number> = {};
    const check = async (args: Record<string, unknown>) => {
      const r = await callTool(client, "fetch", { ...args, output_format: "json" });
      const what = JSON.stringify(args).slice(0, 300);
      assert(r.isError, `${what} succeeded: ${r.content?.[0]?.text}`);
      const e = errorOf(r);
      assert(ERROR_CODES.has(e.code), `${what}: unknown code ${e.code}`);
      assert(!/\n\s+at /.test(e.message + (e.hint ?? "")), `${what}: stack trace`);
      codes[e.code] = (codes[e.code] ?? 0) + 1;
      return e.code;
    };
    try {
      const pools = { docIds: ["lib/a.md"], libraries: ["lib"] };
      await fc.assert(
        fc.asyncProperty(argsFor("fetch", pools), async (args) => void await check(args)),
        { numRuns: RUNS, seed: SEED },
      );
      await fc.assert(
        fc.asyncProperty(privateUrl(server.addr.port), async (url) => {
          assertEquals(await check({ url }), "NOT_ALLOWED", url);
        }),
        { numRuns: RUNS, seed: SEED },
      );
      assertEquals(seen, [], "no request reached the loopback server");
      const names: string[] = [];
      for await (const e of Deno.readDir(lib)) names.push(e.name);
      assertEquals(names, ["a.md"], "nothing was written");
      assert(codes.NOT_ALLOWED! >= RUNS && codes.INVALID_ARGUMENT! > 0, JSON.stringify(codes));
    } finally {
      await client.close();
      await server.shutdown();
    }
  },
});
