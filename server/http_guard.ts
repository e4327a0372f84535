/**
 * Who may talk to the HTTP server: the `Host` a request names (against DNS rebinding),
 * the `Origin` a browser sends (only the server's own, plus configured ones) and the
 * `Sec-Fetch-Site` a browser sends (a cross-site page may not embed or fetch the API),
 * and the bearer token compared in constant time.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** What a request is checked against. */
export interface GuardOptions {
  /** The bound interface, e.g. `127.0.0.1` or `0.0.0.0`. */
  host: string;
  /** The port taken. */
  port: number;
  /** Extra host names the server may be reached as (e.g. a LAN name). */
  allowedHosts?: string[];
  /** Extra browser origins allowed to call the API, e.g. `http://localhost:3000`. */
  allowedOrigins?: string[];
}

/** A refusal: the HTTP status, a code and a message. */
export interface Refusal {
  /** HTTP status. */
  status: number;
  /** Error code, e.g. `FORBIDDEN_HOST`. */
  code: string;
  /** What was wrong. */
  message: string;
}

/** Loopback names every server answers to, whatever it is bound to. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/** A host name as it appears in a `Host` header or URL (IPv6 in brackets, lower case). */
function bracketed(host: string): string {
  const h = host.toLowerCase();
  return h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
}

/** Host names (without port) the server may be named by. */
export function allowedHostNames(opts: GuardOptions): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = bracketed(opts.host);
  if (bound !== "0.0.0.0" && bound !== "[::]") names.add(bound);
  for (const h of opts.allowedHosts ?? []) names.add(bracketed(h));
  return names;
}

/**
 * The names a server bound to every interface (`0.0.0.0`, `::`) is reached by: each
 * interface's address and the machine's host name. None for a specific address.
 */
export function wildcardNames(host: string): string[] {
  if (host !== "0.0.0.0" && host !== "::" && host !== "[::]") return [];
  const names = Deno.networkInterfaces().map((i) => i.address.replace(/%.*$/, ""));
  try {
    names.push(Deno.hostname());
  } catch { /* no host name */ }
  return names;
}

/** Split `name:port` (IPv6 in brackets); the port is undefined when absent. */
function splitHostPort(value: string): [string, number | undefined] | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return undefined;
  return [m[1]!.toLowerCase(), m[2] === undefined ? undefined : Number(m[2])];
}

/**
 * Whether a `Host` header names this server: an allowed host name with the server's port.
 *
 * @example
 * ```ts
 * import { hostAllowed } from "./http_guard.ts";
 * const opts = { host: "127.0.0.1", port: 8080 };
 * if (!hostAllowed("localhost:8080", opts)) throw new Error("loopback refused");
 * if (hostAllowed("evil.example:8080", opts)) throw new Error("foreign host allowed");
 * ```
 */
export function hostAllowed(header: string | null, opts: GuardOptions): boolean {
  if (header === null) return false;
  const hp = splitHostPort(header);
  if (!hp) return false;
  const port = hp[1] ?? 80;
  return port === opts.port && allowedHostNames(opts).has(hp[0]);
}

/** Whether a browser `Origin` is this server's own origin or a configured one. */
export function originAllowed(origin: string | null, opts: GuardOptions): boolean {
  if (origin === null) return true; // not a browser, or a same-origin GET
  if ((opts.allowedOrigins ?? []).includes(origin)) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== "http:") return false;
  const port = u.port === "" ? 80 : Number(u.port);
  return port === opts.port && allowedHostNames(opts).has(u.hostname.toLowerCase());
}

/**
 * The refusal of a request that names another host, comes from a foreign origin, or was
 * sent by a browser on behalf of another site; undefined when it may go on. `api` marks
 * the routes that hold data (`/mcp`, `/api/*`): only those get the Origin and
 * Sec-Fetch-Site checks.
 */
export function refusal(req: Request, opts: GuardOptions, api: boolean): Refusal | undefined {
  if (!hostAllowed(req.headers.get("host"), opts)) {
    return { status: 421, code: "FORBIDDEN_HOST", message: "Host not allowed" };
  }
  if (!api) return undefined;
  const origin = req.headers.get("origin");
  if (!originAllowed(origin, opts)) {
    return { status: 403, code: "FORBIDDEN_ORIGIN", message: "Origin not allowed" };
  }
  const site = req.headers.get("sec-fetch-site");
  const configured = origin !== null && (opts.allowedOrigins ?? []).includes(origin);
  if (site !== null && site !== "same-origin" && site !== "none" && !configured) {
    return { status: 403, code: "FORBIDDEN_ORIGIN", message: `Cross-site request (${site})` };
  }
  return undefined;
}

/** Whether an `Authorization` header carries the token; compared in constant time. */
export function tokenMatches(header: string | null, token: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(header ?? ""), digest(`Bearer ${token}`));
}
