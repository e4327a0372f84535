/**
 * Confinement: nothing outside the library roots can be read through any tool argument
 * (`doc_id`, `doc_ids`, `library`, `path_glob`, `patterns`), any CLI command, or any HTTP
 * request. Attacks: `..`, absolute paths, encoded and double-encoded separators, Windows
 * separators, NUL bytes, symlinks out of the root (file, directory, relative, to
 * /etc/passwd), and a sibling folder whose name extends the root's.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Shelf } from "../../shelf/shelf.ts";
import { decodeText } from "../../core/text_codec.ts";
import { serveHttp } from "../../server/http.ts";
import { assert, assertEquals } from "../assert.ts";
import { callTool, cli, ERROR_CODES, startStdio, type ToolResult } from "./_helpers.ts";
import { testClient } from "../mcp_client.ts";

const TOKEN = "SECRET-7f3a91c2";
const PASSWD = /root:.*:0:0:/;

async function setup(): Promise<{ work: string; lib: string; data: string }> {
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "shelfmark-confine-" }));
  const lib = join(work, "lib");
  await Deno.mkdir(join(lib, "sub"), { recursive: true });
  await Deno.mkdir(join(work, "secret"));
  await Deno.mkdir(join(work, "lib-secret"));
  await Deno.writeTextFile(join(lib, "a.md"), "# Alpha\n\nInside text alpha.\n");
  await Deno.writeTextFile(join(lib, "sub", "b.txt"), "Beta inside.\n");
  await Deno.writeTextFile(join(work, "secret", "s.txt"), `${TOKEN} outside\n`);
  await Deno.writeTextFile(join(work, "lib-secret", "s.txt"), `${TOKEN} sibling\n`);
  await Deno.symlink(join(lib, "a.md"), join(lib, "link-in.md"));
  await Deno.symlink(join(work, "secret", "s.txt"), join(lib, "link-out.txt"));
  await Deno.symlink(join(work, "secret"), join(lib, "link-dir"));
  await Deno.symlink("/etc/passwd", join(lib, "link-passwd.txt"));
  await Deno.symlink("../../secret/s.txt", join(lib, "sub", "link-rel.txt"));
  return { work, lib, data: join(work, "data") };
}

/** Path-like attacks; `W` stands for the absolute work folder. */
function attacks(w: string): string[] {
  return [
    "../secret/s.txt",
    "lib/../secret/s.txt",
    "lib/../lib-secret/s.txt",
    "lib/sub/../../secret/s.txt",
    "lib/./../secret/s.txt",
    "lib//..//secret/s.txt",
    `${w}/secret/s.txt`,
    `${w}/lib/../secret/s.txt`,
    `${w}/lib/link-out.txt`,
    `${w}/lib-secret/s.txt`,
    "/etc/passwd",
    "lib/link-out.txt",
    "lib/link-dir/s.txt",
    "lib/link-passwd.txt",
    "lib/sub/link-rel.txt",
    "lib/%2e%2e/secret/s.txt",
    "lib%2f..%2fsecret%2fs.txt",
    "lib/..%2fsecret/s.txt",
    "lib/%252e%252e/secret/s.txt",
    "lib/%2E%2E%5Csecret%5Cs.txt",
    "lib\\..\\secret\\s.txt",
    "lib/a.md\0/../../secret/s.txt",
    "lib/%00../secret/s.txt",
    "file:///etc/passwd",
    "~/../../etc/passwd",
    "lib/\uff0e\uff0e/secret/s.txt",
    "lib/..",
    "..",
    "/",
    "lib-secret/s.txt",
    "C:\\Windows\\win.ini",
  ];
}

/**
 * Nothing secret, no /etc/passwd, no absolute path of the work folder (unless the caller
 * sent that path itself and the answer quotes it back).
 */
function clean(text: string, w: string, arg = ""): string | undefined {
  if (text.includes(TOKEN)) return "secret token leaked";
  if (PASSWD.test(text)) return "/etc/passwd leaked";
  if (!arg.includes(w) && text.includes(w)) return "absolute path shown";
  return undefined;
}

function checkAnswer(r: ToolResult, w: string, what: string, mustFail: boolean): void {
  const text = r.content.map((c) => c.text).join("\n") + JSON.stringify(r.structuredContent ?? {});
  const leak = clean(text, w, what);
  assert(!leak, `${what}: ${leak}: ${text.slice(0, 300)}`);
  if (r.isError) {
    const code = JSON.parse(r.content[0]!.text).error.code;
    assert(ERROR_CODES.has(code), `${what}: unexpected code ${code}`);
  } else {
    assert(!mustFail, `${what}: answered instead of refusing: ${text.slice(0, 300)}`);
  }
}

Deno.test({
  name: "confinement: no tool, CLI command or HTTP request reads outside the library roots",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const { work, lib, data } = await setup();
    try {
      const idx = await cli(["index", "--data", data, lib]);
      assertEquals(idx.code, 0, idx.stderr);

      await t.step("symlinks out of the root are not indexed", async () => {
        const st = JSON.parse((await cli(["status", "--json", "--data", data])).stdout);
        const refused = st.skipped.filter((s: { reason: string }) => s.reason === "outside_root")
          .map((s: { path: string }) => s.path).sort();
        assertEquals(refused, [
          "lib/link-dir",
          "lib/link-out.txt",
          "lib/link-passwd.txt",
          "lib/sub/link-rel.txt",
        ]);
        const db = new DatabaseSync(join(data, "catalog.db"), { readOnly: true });
        // Texts are stored compressed, block by block: read each back.
        const leaked = db.prepare("SELECT doc_id, text FROM text_blocks").all()
          .filter((r) => decodeText(r.text)!.includes(TOKEN)).map((r) => r.doc_id);
        db.close();
        assertEquals(leaked, []);
      });

      const { client, close } = await startStdio(data, [lib], { extra: ["--no-watch"] });
      try {
        await t.step("control: inside paths work, absolute or not", async () => {
          for (const id of ["lib/a.md", `${work}/lib/a.md`, "lib/link-in.md", "lib/sub/b.txt"]) {
            const r = await callTool(client, "read", { doc_id: id });
            assert(!r.isError, `${id}: ${r.content[0]?.text}`);
          }
        });
        await t.step("every path-like argument of every tool is refused", async () => {
          for (const a of attacks(work)) {
            const calls: [string, Record<string, unknown>, boolean][] = [
              ["read", { doc_id: a }, true],
              ["grep", { doc_id: a, pattern: "SECRET|root" }, true],
              ["outline", { doc_ids: [a] }, true],
              ["outline", { doc_ids: ["lib/a.md", a] }, false],
              ["search", { query: "secret outside sibling", library: a }, false],
              ["search", { query: "secret outside sibling", path_glob: a }, false],
              ["explore", { library: a }, false],
              ["find_paths", { patterns: [a, "secret"], library: a }, false],
              ["find_paths", { patterns: [a, "secret"] }, false],
            ];
            for (const [name, args, mustFail] of calls) {
              for (const format of ["markdown", "json"]) {
                const r = await callTool(client, name, { ...args, output_format: format });
                checkAnswer(r, work, `${name} ${JSON.stringify(args)}`, mustFail);
              }
            }
          }
        });
        await t.step("globs and keywords only reach indexed documents", async () => {
          for (const g of ["*", "/*", "../*", "*secret*", "lib/**", "[!l]*", "lib-secret/*"]) {
            const r = await callTool(client, "search", {
              query: "secret alpha beta",
              path_glob: g,
              output_format: "json",
            });
            checkAnswer(r, work, `path_glob ${g}`, false);
          }
        });
      } finally {
        await close();
      }

      await t.step("CLI commands refuse the same arguments", async () => {
        // A NUL byte cannot even reach a command line; every sixth of the others.
        const some = attacks(work).filter((a, i) => i % 6 === 0 && !a.includes("\0"));
        for (const a of some) {
          for (
            const args of [["read", a], ["grep", "SECRET", a], ["outline", a], [
              "explore",
              a,
            ], ["search", "secret", "--library", a]]
          ) {
            const r = await cli([...args, "--data", data]);
            const leak = clean(r.stdout + r.stderr, work, a);
            assert(!leak, `${args.join(" ")}: ${leak}`);
            if (args[0] !== "search" && args[0] !== "explore") {
              assert(r.code !== 0, `${args.join(" ")} succeeded: ${r.stdout.slice(0, 200)}`);
            }
          }
        }
      });

      await t.step("HTTP: raw request paths and tool calls", async () => {
        const shelf = await Shelf.open({ data, log: () => {}, workers: 0, embedder: "none" });
        const http = serveHttp(shelf, { port: 0 });
        try {
          const raw = [
            "/mcp/../../etc/passwd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/..%2f..%2fetc%2fpasswd",
            "//etc/passwd",
            `/${work}/secret/s.txt`,
            "/health/../../secret/s.txt",
            "/mcp%00/../etc/passwd",
            "/mcp?path=../secret/s.txt",
          ];
          for (const p of raw) {
            const conn = await Deno.connect({ hostname: "127.0.0.1", port: http.port });
            const req = `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
            await conn.write(new TextEncoder().encode(req));
            const chunks: Uint8Array[] = [];
            const buf = new Uint8Array(65536);
            for (let n; (n = await conn.read(buf)) !== null;) chunks.push(buf.slice(0, n));
            conn.close();
            const text = new TextDecoder().decode(
              chunks.reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
            );
            assert(!clean(text, work, p), `GET ${p}: ${clean(text, work, p)}`);
            assert(
              !/^HTTP\/1\.1 200/.test(text) || p.startsWith("/health"),
              `GET ${p}: ${text.slice(0, 120)}`,
            );
          }
          const c = testClient("confine");
          await c.connect(new StreamableHTTPClientTransport(new URL(http.url)));
          for (const a of attacks(work)) {
            const r = await callTool(c, "read", { doc_id: a, output_format: "json" });
            checkAnswer(r, work, `http read ${JSON.stringify(a)}`, true);
          }
          await c.close();
        } finally {
          await http.shutdown();
          await shelf.close();
        }
      });
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
