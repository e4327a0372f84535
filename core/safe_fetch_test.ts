import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { fetchableUrl, notPublic, safeFetch } from "./safe_fetch.ts";
import { ToolError } from "./types.ts";

/** A loopback server that counts the requests it sees; `routes` answer by path. */
function testServer(routes: Record<string, (req: Request) => Response>) {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    return (routes[path] ?? (() => new Response("no", { status: 404 })))(req);
  });
  const port = server.addr.port;
  return {
    port,
    seen,
    allow: [`127.0.0.1:${port}`],
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () => server.shutdown(),
  };
}

const PAGE = "<html><head><title>A page</title></head><body><h1>Hi</h1></body></html>";
const html = () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });

/** A body of `total` bytes sent in chunks, with no Content-Length. */
function stream(total: number, type = "text/plain"): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(65536, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(97));
    },
  });
  return new Response(body, { headers: { "content-type": type } });
}

async function refused(p: Promise<unknown>, code: string, message?: RegExp): Promise<ToolError> {
  const e = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(e instanceof ToolError, `expected a ToolError, got ${e}`);
  assert.equal(e.code, code, e.message);
  if (message) assert.match(e.message, message);
  return e;
}

Deno.test("safeFetch() downloads a page from a loopback server on the test allow-list", async () => {
  const s = testServer({
    "/page": html,
    "/host": (req) =>
      new Response(req.headers.get("host"), { headers: { "content-type": "text/plain" } }),
  });
  try {
    // A name keeps its Host header; the connection goes to the address checked.
    const named = await safeFetch(`http://localhost:${s.port}/host`, { testAllow: s.allow });
    assert.equal(new TextDecoder().decode(named.bytes), `localhost:${s.port}`);
    assert.equal(named.address, "127.0.0.1");
    const r = await safeFetch(s.url("/page"), { testAllow: s.allow });
    assert.equal(r.status, 200);
    assert.equal(r.contentType, "text/html");
    assert.equal(new TextDecoder().decode(r.bytes), PAGE);
    assert.equal(r.address, "127.0.0.1");
    assert.deepEqual(s.seen, ["/host", "/page"]);
  } finally {
    await s.close();
  }
});

Deno.test("safeFetch() refuses loopback, private and metadata addresses before connecting", async () => {
  const s = testServer({ "/page": html });
  try {
    const p = s.port;
    const cases: [string, RegExp][] = [
      [`http://127.0.0.1:${p}/page`, /loopback/],
      [
        `http://localhost:${p}/page`,
        /localhost resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/,
      ],
      [`http://0x7f.1:${p}/page`, /loopback/],
      [`http://2130706433:${p}/page`, /loopback/],
      [`http://0177.0.0.1:${p}/page`, /loopback/],
      [`http://[::ffff:127.0.0.1]:${p}/page`, /ipv4Mapped loopback/],
      [`http://[::ffff:7f00:1]:${p}/page`, /ipv4Mapped loopback/],
      [`http://[64:ff9b::127.0.0.1]:${p}/page`, /loopback/],
      [`http://[::1]:${p}/page`, /loopback/],
      [`http://[::127.0.0.1]:${p}/page`, /reserved/],
      ["http://169.254.169.254/latest/meta-data/", /linkLocal/],
      ["http://10.0.0.1/", /private/],
      ["http://192.168.1.1/", /private/],
      ["http://100.64.0.1/", /carrierGradeNat/],
      ["http://0.0.0.0/", /unspecified/],
      ["http://[fe80::1]/", /linkLocal/],
      ["http://[fd00::1]/", /uniqueLocal/],
    ];
    for (const [url, why] of cases) await refused(safeFetch(url), "NOT_ALLOWED", why);
    // The allow-list names one address and port: another port of it stays closed.
    await refused(
      safeFetch(`http://127.0.0.1:${p}/page`, { testAllow: [`127.0.0.1:${p + 1}`] }),
      "NOT_ALLOWED",
    );
    assert.deepEqual(s.seen, [], "no request reached the loopback server");
  } finally {
    await s.close();
  }
});

Deno.test("safeFetch() reports a redirect with its target and does not follow it", async () => {
  const s = testServer({
    "/moved": () => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/x" } }),
    "/rel": () => new Response(null, { status: 301, headers: { location: "/page" } }),
    "/out": () =>
      new Response(null, { status: 308, headers: { location: "https://example.org/new" } }),
    "/page": html,
  });
  try {
    const e = await refused(
      safeFetch(s.url("/moved"), { testAllow: s.allow }),
      "REDIRECTED",
      /302: it moved to http:\/\/10\.0\.0\.1\/x/,
    );
    assert.match(e.hint ?? "", /not a public address \(private\): fetch refuses it/);
    assert.deepEqual(e.details, { status: 302, location: "http://10.0.0.1/x" });
    const rel = await refused(safeFetch(s.url("/rel"), { testAllow: s.allow }), "REDIRECTED");
    assert.match(rel.message, new RegExp(`moved to ${s.url("/page")}`));
    const out = await refused(safeFetch(s.url("/out"), { testAllow: s.allow }), "REDIRECTED");
    assert.match(out.hint ?? "", /fetch https:\/\/example\.org\/new if you mean to/);
    assert.deepEqual(s.seen, ["/moved", "/rel", "/out"], "no redirect target was requested");
  } finally {
    await s.close();
  }
});

Deno.test("safeFetch() stops reading past the size cap, declared or streamed", async () => {
  const big = 3 * 1024 * 1024;
  const s = testServer({
    "/stream": () => stream(big),
    "/declared": () =>
      new Response(new Uint8Array(big), {
        headers: { "content-type": "text/plain", "content-length": String(big) },
      }),
    "/bomb": () =>
      new Response(new Uint8Array(gzipSync(new Uint8Array(big))), {
        headers: { "content-type": "text/plain", "content-encoding": "gzip" },
      }),
    "/small-gzip": () =>
      new Response(new Uint8Array(gzipSync(new TextEncoder().encode("hello ".repeat(100)))), {
        headers: { "content-type": "text/plain", "content-encoding": "gzip" },
      }),
  });
  try {
    const opts = { testAllow: s.allow, maxBytes: 1024 * 1024 };
    for (const path of ["/stream", "/declared", "/bomb"]) {
      await refused(safeFetch(s.url(path), opts), "TOO_LARGE", /larger than 1,048,576 bytes/);
    }
    const ok = await safeFetch(s.url("/small-gzip"), opts);
    assert.equal(new TextDecoder().decode(ok.bytes), "hello ".repeat(100));
  } finally {
    await s.close();
  }
});

Deno.test("safeFetch() refuses content types off the allow-list and error statuses", async () => {
  const s = testServer({
    "/bin": () => new Response("x", { headers: { "content-type": "application/octet-stream" } }),
    "/none": () => new Response(new Uint8Array([1, 2])),
  });
  try {
    await refused(
      safeFetch(s.url("/bin"), { testAllow: s.allow }),
      "UNSUPPORTED_TYPE",
      /application\/octet-stream/,
    );
    await refused(safeFetch(s.url("/missing"), { testAllow: s.allow }), "FETCH_FAILED", /404/);
  } finally {
    await s.close();
  }
});

Deno.test("safeFetch() gives up at its time limit", async () => {
  const s = testServer({ "/slow": () => stream(10, "text/plain") });
  const hang = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      new ReadableStream({ start: (c) => c.enqueue(new Uint8Array([97])) }),
      { headers: { "content-type": "text/plain" } },
    ));
  try {
    const port = hang.addr.port;
    await refused(
      safeFetch(`http://127.0.0.1:${port}/`, { testAllow: [`127.0.0.1:${port}`], timeoutMs: 300 }),
      "FETCH_FAILED",
      /within 0\.3 s/,
    );
  } finally {
    await s.close();
    await hang.shutdown();
  }
});

Deno.test("fetchableUrl() refuses what is not an http or https URL with a host", () => {
  for (
    const [raw, why] of [
      ["ftp://example.org/a", /scheme is ftp/],
      ["file:///etc/passwd", /scheme is file/],
      ["http://", /not a URL/],
      ["example.org/page", /not a URL/],
      ["http://user:pw@example.org/", /user name or password/],
      ["javascript:alert(1)", /scheme is javascript/],
    ] as const
  ) {
    assert.throws(() => fetchableUrl(raw), (e: unknown) => {
      assert.ok(e instanceof ToolError);
      assert.equal(e.code, "INVALID_ARGUMENT");
      assert.match(e.message, why);
      assert.ok(e.message.includes(JSON.stringify(raw)));
      return true;
    });
  }
});

Deno.test("notPublic() names the range of every non-public address", () => {
  const ranges: Record<string, string> = {
    "127.0.0.1": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "192.168.0.1": "private",
    "169.254.169.254": "linkLocal",
    "100.64.0.1": "carrierGradeNat",
    "198.18.0.1": "reserved",
    "192.0.2.1": "reserved",
    "240.0.0.1": "reserved",
    "224.0.0.1": "multicast",
    "255.255.255.255": "broadcast",
    "0.0.0.0": "unspecified",
    "::": "unspecified",
    "::1": "loopback",
    "fe80::1": "linkLocal",
    "fc00::1": "uniqueLocal",
    "ff02::1": "multicast",
    "2001:db8::1": "reserved",
    "2001:2::1": "benchmarking",
    "2002:7f00:1::1": "6to4",
    "2001:0:4136:e378::1": "teredo",
    "::ffff:10.0.0.1": "ipv4Mapped private",
    "64:ff9b::a9fe:a9fe": "rfc6052 linkLocal",
    "64:ff9b:1::1": "rfc6052",
    "::7f00:1": "reserved",
  };
  for (const [ip, range] of Object.entries(ranges)) assert.equal(notPublic(ip), range, ip);
  for (const ip of ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]) {
    assert.equal(notPublic(ip), undefined, ip);
  }
  assert.equal(notPublic("64:ff9b::808:808"), undefined, "NAT64 of a public address");
});
