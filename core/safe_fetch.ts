/**
 * Download one `http`/`https` URL on the server, safe against server-side request forgery:
 * the host is resolved here and every address it has must be public (ipaddr.js classifies
 * them; loopback, private, link-local, multicast, unspecified, CGNAT, benchmark, reserved
 * and documentation ranges are refused, and so are IPv6 forms that carry an IPv4 address:
 * mapped, NAT64, IPv4-compatible, 6to4, Teredo); the connection goes to the address that
 * was checked (node:http's `lookup` answers with it, so a second DNS answer cannot move
 * it); redirects are reported, never followed; the body is capped (streamed, the
 * connection dropped past the cap), the whole exchange is timed, and the content type
 * must be one of an allow-list.
 *
 * The URL parser spells every IPv4 form (`0x7f.1`, `2130706433`, `0177.0.0.1`) as a
 * dotted quad before anything is checked.
 *
 * @module
 */
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import zlib from "node:zlib";
import ipaddr from "ipaddr.js";
import { ToolError } from "./types.ts";

/** The content types fetched by default, each with the extension its file gets. */
export const FETCH_TYPES: Readonly<Record<string, string>> = {
  "text/html": ".html",
  "application/xhtml+xml": ".html",
  "text/markdown": ".md",
  "text/x-markdown": ".md",
  "text/plain": ".txt",
  "text/csv": ".csv",
  "application/json": ".json",
  "application/xml": ".xml",
  "text/xml": ".xml",
  "application/pdf": ".pdf",
  "application/epub+zip": ".epub",
  "application/rtf": ".rtf",
  "text/rtf": ".rtf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
  "application/vnd.oasis.opendocument.text": ".odt",
  "application/vnd.oasis.opendocument.spreadsheet": ".ods",
  "application/vnd.oasis.opendocument.presentation": ".odp",
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "image/tiff": ".tif",
};

/** The default size cap of a download: 20 MiB. */
export const FETCH_MAX_BYTES = 20 * 1024 * 1024;
/** The default time limit of a download (connection, headers and body): 30 s. */
export const FETCH_TIMEOUT_MS = 30_000;

/** How a download is limited. */
export interface SafeFetchOptions {
  /** Size cap of the body in bytes, after decompression (default {@link FETCH_MAX_BYTES}). */
  maxBytes?: number;
  /** Time limit of the whole exchange in ms (default {@link FETCH_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Content types accepted (default: the keys of {@link FETCH_TYPES}). */
  types?: readonly string[];
  /**
   * TESTS ONLY: `address:port` pairs (`127.0.0.1:8123`, `[::1]:8123`) reachable although
   * their address is not public, so a test can fetch from its own loopback server. Nothing
   * a tool call or `shelfmark.json` says reaches this: only code that opens a shelf does.
   */
  testAllow?: readonly string[];
}

/** A downloaded body. */
export interface Fetched {
  /** The URL fetched (normalised by the URL parser). */
  url: string;
  /** The HTTP status (2xx). */
  status: number;
  /** The content type, lower case, without parameters. */
  contentType: string;
  /** The `charset` parameter of the content type, lower case, when it has one. */
  charset?: string;
  /** The body (decompressed). */
  bytes: Uint8Array;
  /** The address the connection went to (the one checked). */
  address: string;
}

/**
 * Why an address may not be fetched, or undefined when it is public. The name is
 * ipaddr.js's range (`loopback`, `private`, `linkLocal`, ...), with the embedded IPv4
 * address's range for the IPv6 forms that carry one.
 *
 * @param ip an IPv4 or IPv6 address (IPv6 without brackets)
 * @returns the range that makes it refused, or undefined
 * @example
 * ```ts
 * import { notPublic } from "./safe_fetch.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(notPublic("10.0.0.1"), "private");
 * assert.equal(notPublic("::ffff:127.0.0.1"), "ipv4Mapped loopback");
 * assert.equal(notPublic("93.184.216.34"), undefined);
 * ```
 */
export function notPublic(ip: string): string | undefined {
  if (!ipaddr.isValid(ip)) return "not an address";
  const addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv4") {
    const range = addr.range();
    return range === "unicast" ? undefined : range;
  }
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  const parts = v6.parts;
  // Forms that carry an IPv4 address in their last 32 bits: judged by that address.
  if (range === "ipv4Mapped" || range === "rfc6145" || isNat64(parts)) {
    const inner = notPublic(embeddedV4(parts));
    return inner ? `${range} ${inner}` : undefined;
  }
  if (range !== "unicast") return range;
  // Global unicast is 2000::/3; the rest (IPv4-compatible ::a.b.c.d among it) is not routed.
  if ((parts[0]! & 0xe000) !== 0x2000) return "reserved";
  return undefined;
}

/** 64:ff9b::/96, the well-known NAT64 prefix (not its local-use /48 sibling). */
function isNat64(parts: number[]): boolean {
  return parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0);
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedV4(parts: number[]): string {
  const hi = parts[6]!, lo = parts[7]!;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
}

/**
 * Parse and check a URL to fetch: `http` or `https`, a host, no user name or password.
 *
 * @param raw the URL as given
 * @returns the parsed URL
 * @throws {ToolError} `INVALID_ARGUMENT` quoting the URL
 * @example
 * ```ts
 * import { fetchableUrl } from "./safe_fetch.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(fetchableUrl("http://0x7f.1/").hostname, "127.0.0.1");
 * assert.throws(() => fetchableUrl("ftp://example.org/"), /http or https/);
 * ```
 */
export function fetchableUrl(raw: string): URL {
  const bad = (why: string) =>
    new ToolError(
      "INVALID_ARGUMENT",
      `Cannot fetch ${JSON.stringify(raw)}: ${why}`,
      "Give an absolute http:// or https:// URL, such as https://example.org/page.html.",
    );
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad("not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw bad(`the scheme is ${url.protocol.slice(0, -1)}, not http or https`);
  }
  if (!url.hostname) throw bad("it has no host");
  if (url.username || url.password) throw bad("it carries a user name or password");
  return url;
}

/** The URL's host as an address when it is one (IPv6 without its brackets). */
function literalAddress(url: URL): string | undefined {
  const h = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(h) && (h.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(h))
    ? h
    : undefined;
}

/** The port the URL connects to. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** `address:port` as an allow-list writes it (`[::1]:80` for IPv6). */
function endpoint(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The address to connect to: the URL's literal address, or the first the host resolves
 * to, each address checked (one non-public address refuses the host).
 */
async function checkedAddress(url: URL, allow: readonly string[]): Promise<LookupAddress> {
  const port = portOf(url);
  const literal = literalAddress(url);
  let found: LookupAddress[];
  if (literal) found = [{ address: literal, family: literal.includes(":") ? 6 : 4 }];
  else {
    try {
      found = await dnsLookup(url.hostname, { all: true, verbatim: true });
    } catch (e) {
      throw new ToolError(
        "FETCH_FAILED",
        `Cannot resolve ${JSON.stringify(url.hostname)}: ${(e as Error).message}`,
        "Check the host name in the URL.",
      );
    }
  }
  if (!found.length) {
    throw new ToolError("FETCH_FAILED", `${url.hostname} has no address`, "Check the host name.");
  }
  for (const a of found) {
    const why = notPublic(a.address);
    if (why && !allow.includes(endpoint(ipaddr.parse(a.address).toString(), port))) {
      throw new ToolError(
        "NOT_ALLOWED",
        `Refused to fetch ${url.href}: ${
          literal ? a.address : `${url.hostname} resolves to ${a.address}, which`
        } is not a public address (${why})`,
        "fetch downloads from public addresses only (no loopback, private, link-local or reserved networks).",
      );
    }
  }
  return found[0]!;
}

/**
 * Download a URL (see the module's notes on what is refused).
 *
 * @param raw the URL
 * @param opts caps, accepted types and (tests only) loopback servers to allow
 * @returns the body with its type, status and the address it came from
 * @throws {ToolError} `INVALID_ARGUMENT` (not an http/https URL), `NOT_ALLOWED` (not a
 *   public address), `REDIRECTED` (with the new location, not followed), `TOO_LARGE`,
 *   `UNSUPPORTED_TYPE`, `FETCH_FAILED` (DNS, connection, time limit, HTTP error status)
 * @example
 * ```ts
 * import { safeFetch } from "./safe_fetch.ts";
 * import assert from "node:assert/strict";
 *
 * await assert.rejects(safeFetch("http://169.254.169.254/latest/meta-data/"), {
 *   code: "NOT_ALLOWED",
 * });
 * ```
 */
export async function safeFetch(raw: string, opts: SafeFetchOptions = {}): Promise<Fetched> {
  const url = fetchableUrl(raw);
  const pinned = await checkedAddress(url, opts.testAllow ?? []);
  const maxBytes = opts.maxBytes ?? FETCH_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? FETCH_TIMEOUT_MS;
  const types = opts.types ?? Object.keys(FETCH_TYPES);
  const client = url.protocol === "https:" ? https : http;
  return await new Promise<Fetched>((resolve, reject) => {
    let settled = false;
    const done = (e: ToolError | undefined, value?: Fetched) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (e) {
        req.destroy();
        reject(e);
      } else resolve(value!);
    };
    const timer = setTimeout(() =>
      done(
        new ToolError(
          "FETCH_FAILED",
          `${url.href} did not answer in full within ${timeoutMs / 1000} s`,
          "Try again later, or fetch a smaller resource.",
        ),
      ), timeoutMs);
    const req = client.request(url, {
      method: "GET",
      // The connection goes to the address checked above, whatever DNS says now.
      lookup: ((
        _host: string,
        o: { all?: boolean },
        cb: (e: Error | null, a: string | LookupAddress[], f?: number) => void,
      ) => o.all ? cb(null, [pinned]) : cb(null, pinned.address, pinned.family)) as never,
      agent: false,
      headers: {
        "user-agent": "shelfmark-fetch/1",
        accept: [...types, "*/*;q=0.1"].join(", "),
        "accept-encoding": "gzip, deflate, br",
      },
    }, (res) => {
      const status = res.statusCode ?? 0;
      const remote = res.socket?.remoteAddress;
      if (remote && ipaddr.isValid(remote) && !sameAddress(remote, pinned.address)) {
        return done(
          new ToolError("NOT_ALLOWED", `Connected to ${remote}, not ${pinned.address}`),
        );
      }
      if (status >= 300 && status < 400) {
        const loc = res.headers.location;
        return done(redirected(url, status, loc));
      }
      if (status < 200 || status >= 300) {
        return done(
          new ToolError(
            "FETCH_FAILED",
            `${url.href} answered ${status} ${res.statusMessage ?? ""}`.trim(),
            status === 404 ? "Check the URL." : "Try again later or another URL.",
          ),
        );
      }
      const typeHeader = res.headers["content-type"] ?? "";
      const contentType = typeHeader.split(";")[0]!.trim().toLowerCase();
      const charset = /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(typeHeader)?.[1]?.toLowerCase();
      if (!types.includes(contentType)) {
        return done(
          new ToolError(
            "UNSUPPORTED_TYPE",
            `${url.href} is ${contentType || "of no declared type"}, which fetch does not save`,
            `Types saved: ${types.join(", ")}.`,
          ),
        );
      }
      const tooLarge = () =>
        new ToolError(
          "TOO_LARGE",
          `${url.href} is larger than ${maxBytes.toLocaleString("en-US")} bytes`,
          "fetch saves smaller resources only.",
        );
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxBytes) return done(tooLarge());
      const body = decoded(res, res.headers["content-encoding"]);
      if (!body) {
        return done(
          new ToolError(
            "FETCH_FAILED",
            `${url.href} is encoded as ${
              res.headers["content-encoding"]
            }, which fetch cannot decode`,
          ),
        );
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      body.on("data", (c: Uint8Array) => {
        size += c.length;
        if (size > maxBytes) {
          body.destroy();
          return done(tooLarge());
        }
        chunks.push(c);
      });
      body.on("error", (e: Error) => done(failed(url, e)));
      body.on("end", () => {
        const bytes = new Uint8Array(size);
        let at = 0;
        for (const c of chunks) {
          bytes.set(c, at);
          at += c.length;
        }
        done(undefined, {
          url: url.href,
          status,
          contentType,
          charset,
          bytes,
          address: pinned.address,
        });
      });
    });
    req.on("error", (e) => done(failed(url, e)));
    req.end();
  });
}

/** Whether two spellings name one address (`::ffff:1.2.3.4` and `1.2.3.4` do). */
function sameAddress(a: string, b: string): boolean {
  const pa = ipaddr.process(a), pb = ipaddr.process(b);
  return pa.kind() === pb.kind() && pa.toString() === pb.toString();
}

/** The body stream, decompressed when the server compressed it (undefined: unknown coding). */
function decoded(
  res: http.IncomingMessage,
  coding: string | undefined,
): NodeJS.ReadableStream & { destroy(): void } | undefined {
  const c = (coding ?? "identity").trim().toLowerCase();
  if (c === "identity" || c === "") return res;
  const z = c === "gzip" || c === "x-gzip"
    ? zlib.createGunzip()
    : c === "deflate"
    ? zlib.createInflate()
    : c === "br"
    ? zlib.createBrotliDecompress()
    : undefined;
  if (!z) return undefined;
  res.on("error", (e) => z.destroy(e));
  return res.pipe(z);
}

/** A redirect, reported with where it leads (a private target said so). */
function redirected(url: URL, status: number, location: string | undefined): ToolError {
  if (!location) {
    return new ToolError("FETCH_FAILED", `${url.href} answered ${status} without a Location`);
  }
  let target: string;
  try {
    target = new URL(location, url).href;
  } catch {
    return new ToolError(
      "FETCH_FAILED",
      `${url.href} answered ${status} with a Location that is not a URL: ${
        JSON.stringify(location.slice(0, 200))
      }`,
    );
  }
  const lit = /^https?:$/.test(new URL(target).protocol)
    ? literalAddress(new URL(target))
    : undefined;
  const why = lit ? notPublic(lit) : undefined;
  return new ToolError(
    "REDIRECTED",
    `${url.href} answered ${status}: it moved to ${target}`,
    why
      ? `Redirects are not followed, and ${target} is not a public address (${why}): fetch refuses it.`
      : `Redirects are not followed: fetch ${target} if you mean to.`,
    { status, location: target },
  );
}

/** A network failure as a tool error. */
function failed(url: URL, e: Error): ToolError {
  if (e instanceof ToolError) return e;
  return new ToolError(
    "FETCH_FAILED",
    `Cannot fetch ${url.href}: ${e.message}`,
    "Check the URL, or try again later.",
  );
}
