/**
 * Bad input over stdio, as a raw client sends it: a line that is not JSON gets the
 * JSON-RPC parse error, a JSON line that is no JSON-RPC message an invalid request
 * error, arguments that are not an object a structured INVALID_ARGUMENT error; the
 * server keeps answering after each.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";

const CLI = new URL("../../server/cli.ts", import.meta.url).pathname;

type Answer = { id: unknown; result?: Record<string, unknown>; error?: { code: number } };

Deno.test({
  name: "serve --stdio answers bad lines and bad arguments with JSON-RPC errors",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-stdio-" });
    const lib = join(base, "lib");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nText.\n");
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CLI, "serve", "--stdio", "--no-watch", "--data", join(base, "d"), lib],
      env: { SHELFMARK_EMBEDDER: "none" },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    const next = async (): Promise<Answer> => {
      while (!pending.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("the server closed stdout");
        pending += value;
      }
      const at = pending.indexOf("\n");
      const line = pending.slice(0, at);
      pending = pending.slice(at + 1);
      return JSON.parse(line);
    };
    const send = (line: string) => writer.write(new TextEncoder().encode(line + "\n"));
    const call = (id: number, name: string, args: unknown) =>
      send(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args },
      }));
    try {
      await send("this is not json");
      assertEquals(await next(), {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error: the line is not JSON" },
      } as unknown as Answer);
      await send("[1, 2]");
      const invalid = await next();
      assertEquals([invalid.id, invalid.error?.code], [null, -32600]);
      await send(JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }));
      assertEquals((await next()).id, 1);
      await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      for (const [id, args] of [[2, []], [3, "x"], [4, 7]] as const) {
        await call(id, "search", args);
        const r = await next();
        assertEquals(r.id, id);
        const text = JSON.stringify(r);
        assertEquals(text.includes("INVALID_ARGUMENT"), true, text);
        assertEquals(text.includes("invalid_type"), false, text); // no raw zod dump
      }
    } finally {
      await writer.close().catch(() => {});
      child.kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});
