/**
 * Idle and slow connections cannot stop the HTTP server: under a limit of 256 open
 * files, 300 idle sockets leave it alive and answering a normal request, and a client
 * that never finishes its headers is disconnected by the server.
 */
import { assertEquals } from "../assert.ts";
import { rawRequest } from "./raw_http.ts";

const SERVER = new URL("./serve_limited.ts", import.meta.url).pathname;

async function start(base: string, limits: Record<string, number>) {
  const child = new Deno.Command("prlimit", {
    args: ["--nofile=256", Deno.execPath(), "run", "-A", SERVER, base, JSON.stringify(limits)],
    env: { SHELFMARK_EMBEDDER: "none" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let port: number | undefined;
  while (port === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`test server exited: ${seen}`);
    seen += value;
    const m = /port (\d+)/.exec(seen);
    if (m) port = Number(m[1]);
  }
  reader.releaseLock();
  return { child, port };
}

/** Wait until the server closes `conn` (a read gives end of file or an error). */
async function closedByServer(conn: Deno.Conn): Promise<true> {
  const buf = new Uint8Array(1024);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return true;
  }
}

Deno.test({
  name: "serveHttp() survives 300 idle sockets under prlimit --nofile=256",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-idle-" });
    // Long timeouts: only the connection cap keeps this server alive.
    const { child, port } = await start(base, { headersTimeoutMs: 600_000 });
    const idle: Deno.Conn[] = [];
    try {
      // The server may close (reset) the oldest idle ones to make room; that is the point.
      for (let i = 0; i < 300; i++) {
        const c = await Deno.connect({ hostname: "127.0.0.1", port }).catch(() => undefined);
        if (c) idle.push(c);
      }
      assertEquals(idle.length > 256, true, `only ${idle.length} sockets opened`);
      // Half of them send part of a request, the others nothing.
      for (const c of idle.slice(0, 150)) {
        await c.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n")).catch(() => 0);
      }
      const r = await rawRequest(port, "GET", "/health", { host: `127.0.0.1:${port}` });
      assertEquals(r.status, 200);
      assertEquals(JSON.parse(r.body).ok, true);
      const again = await rawRequest(port, "GET", "/health", { host: `localhost:${port}` });
      assertEquals(again.status, 200);
      // Still running: no exit status yet.
      const exited = await Promise.race([child.status.then(() => true), Promise.resolve(false)]);
      assertEquals(exited, false);
    } finally {
      for (const c of idle) {
        try {
          c.close();
        } catch { /* closed by the server */ }
      }
      child.kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test({
  name: "serveHttp() closes a connection whose headers never end (slowloris)",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-slow-" });
    const { child, port } = await start(base, { headersTimeoutMs: 300, idleTimeoutMs: 600_000 });
    try {
      const slow = await Deno.connect({ hostname: "127.0.0.1", port });
      await slow.write(new TextEncoder().encode("GET /health HTTP/1.1\r\nHost: x\r\n"));
      // Trickle a header byte now and then; the server still closes it.
      const trickle = setInterval(
        () => slow.write(new TextEncoder().encode("X")).catch(() => {}),
        100,
      );
      assertEquals(await closedByServer(slow), true);
      clearInterval(trickle);
      try {
        slow.close();
      } catch { /* closed */ }
      // A second request on a kept-alive connection gets the same clock.
      const keep = await Deno.connect({ hostname: "127.0.0.1", port });
      const host = `127.0.0.1:${port}`;
      await keep.write(new TextEncoder().encode(`GET /health HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
      const buf = new Uint8Array(4096);
      const n = await keep.read(buf);
      assertEquals(
        new TextDecoder().decode(buf.subarray(0, n ?? 0)).startsWith("HTTP/1.1 200"),
        true,
      );
      await keep.write(new TextEncoder().encode("GET /health HTTP/1.1\r\n"));
      assertEquals(await closedByServer(keep), true);
      try {
        keep.close();
      } catch { /* closed */ }
    } finally {
      child.kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});
