/**
 * The TCP front of the HTTP server. `Deno.serve` has no connection cap and no header or
 * idle timeout, so idle sockets could use up the process's file descriptors and stop it.
 * Here every connection is accepted by this module and relayed to the real server on a
 * private Unix socket, with:
 *
 * - a cap on connections, total and per client address: at the cap the oldest connection
 *   that is not waiting for an answer (still sending its headers, or idle between
 *   requests) is closed to make room, so a real request always gets in;
 * - a time limit for the headers of each request (slowloris), and for idleness;
 * - accept errors (EMFILE, ...) survived: the loop waits a moment and goes on.
 *
 * @module
 */

/** Limits of the connections of an HTTP server. */
export interface ConnectionLimits {
  /** Connections at most (default: what the open-file limit allows, up to 512). */
  maxConnections?: number;
  /** Connections at most from one client address (default: half of `maxConnections`). */
  maxPerClient?: number;
  /** Time a client has to send a request's headers (default 10 s). */
  headersTimeoutMs?: number;
  /** A connection with no bytes either way this long is closed (default 5 min). */
  idleTimeoutMs?: number;
}

/** A relay running: stop it to close the listener and every connection. */
export interface Relay {
  /** Resolves when the listener is closed. */
  closed: Promise<void>;
  /** Close the listener and every connection. */
  close(): void;
}

/** File descriptors a relayed connection uses: the client's, and both ends to the server. */
const FDS_PER_CONNECTION = 3;
/** Descriptors left for the rest of the process (database, files, workers). */
const FDS_RESERVED = 64;

/**
 * Connections allowed by the descriptors the process has left under its open-file limit
 * (Linux: `/proc/self/limits` and `/proc/self/fd`), at most 512 and at least 8.
 *
 * @returns the default of `maxConnections`
 */
export function defaultMaxConnections(): number {
  let free = 1024 - 32;
  try {
    const m = /Max open files\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/limits"));
    let used = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) used++;
    if (m) free = Number(m[1]) - used;
  } catch { /* not Linux: assume the usual 1024, a few in use */ }
  return Math.max(8, Math.min(512, Math.floor((free - FDS_RESERVED) / FDS_PER_CONNECTION)));
}

/** One relayed connection and what is known of its traffic. */
class Relayed {
  backend: Deno.Conn | undefined;
  /** A request was started and its answer has not begun. */
  waiting = false;
  /** The headers of the current request are complete. */
  headersDone = false;
  /** Last bytes of the headers seen so far (to find `\r\n\r\n` across chunks). */
  tail = "";
  lastActive = Date.now();
  closed = false;
  #headersTimer: ReturnType<typeof setTimeout> | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly client: Deno.Conn,
    readonly address: string,
    readonly limits: Required<ConnectionLimits>,
    readonly onClose: (r: Relayed) => void,
  ) {
    this.#startHeaders();
    this.#touch();
  }

  /** Whether closing it loses no answer: headers still coming, or idle between requests. */
  get evictable(): boolean {
    return !this.headersDone || !this.waiting;
  }

  #startHeaders(): void {
    this.headersDone = false;
    this.tail = "";
    clearTimeout(this.#headersTimer);
    this.#headersTimer = setTimeout(() => this.close(), this.limits.headersTimeoutMs);
  }

  #touch(): void {
    this.lastActive = Date.now();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.close(), this.limits.idleTimeoutMs);
  }

  /** Bytes from the client: a new request starts its headers clock; find their end. */
  fromClient(chunk: Uint8Array): void {
    this.#touch();
    if (!this.waiting) {
      this.waiting = true;
      if (this.headersDone) this.#startHeaders();
    }
    if (this.headersDone) return;
    const text = this.tail + new TextDecoder("latin1").decode(chunk);
    if (text.includes("\r\n\r\n")) {
      this.headersDone = true;
      clearTimeout(this.#headersTimer);
    } else {
      this.tail = text.slice(-3);
    }
  }

  /** Bytes from the server: the answer began, the next client bytes are a new request. */
  fromServer(): void {
    this.#touch();
    this.waiting = false;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.#headersTimer);
    clearTimeout(this.#idleTimer);
    for (const c of [this.client, this.backend]) {
      try {
        c?.close();
      } catch { /* already closed */ }
    }
    this.onClose(this);
  }
}

/** Largest request head kept before the server is connected. */
const MAX_HEAD_BYTES = 64 * 1024;

/** Write all of `chunk`. */
async function writeAll(to: Deno.Conn, chunk: Uint8Array): Promise<void> {
  let at = 0;
  while (at < chunk.length) at += await to.write(chunk.subarray(at));
}

/**
 * The bytes a client sends up to the end of its first request's headers (and what came
 * with them), or undefined when it closes first or sends more than `MAX_HEAD_BYTES`.
 */
async function firstHeaders(
  from: Deno.Conn,
  seen: (chunk: Uint8Array) => void,
  done: () => boolean,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buf = new Uint8Array(16 * 1024);
  while (!done()) {
    const n = await from.read(buf);
    if (n === null) return undefined;
    const chunk = buf.slice(0, n);
    seen(chunk);
    chunks.push(chunk);
    size += n;
    if (size > MAX_HEAD_BYTES) return undefined;
  }
  return new Uint8Array(await new Blob(chunks as Uint8Array<ArrayBuffer>[]).arrayBuffer());
}

/** Copy `from` to `to` until either ends, telling `seen` of each chunk. */
async function pump(
  from: Deno.Conn,
  to: Deno.Conn,
  seen: (chunk: Uint8Array) => void,
): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await from.read(buf);
    if (n === null) return;
    const chunk = buf.subarray(0, n);
    seen(chunk);
    await writeAll(to, chunk);
  }
}

/**
 * Accept connections on `listener` and relay each to the HTTP server listening on the
 * Unix socket `backend`, within `limits`.
 *
 * @param listener the public TCP listener
 * @param backend path of the server's Unix socket
 * @param limits connection limits (defaults as documented on {@linkcode ConnectionLimits})
 * @returns the running relay
 */
export function relayConnections(
  listener: Deno.Listener<Deno.TcpConn, Deno.NetAddr>,
  backend: string,
  limits: ConnectionLimits = {},
): Relay {
  const max = limits.maxConnections ?? defaultMaxConnections();
  const all: Required<ConnectionLimits> = {
    maxConnections: max,
    maxPerClient: limits.maxPerClient ?? Math.max(1, Math.floor(max / 2)),
    headersTimeoutMs: limits.headersTimeoutMs ?? 10_000,
    idleTimeoutMs: limits.idleTimeoutMs ?? 5 * 60_000,
  };
  /** Open connections, oldest first. */
  const open = new Set<Relayed>();
  const perClient = new Map<string, number>();
  let stopped = false;
  const forget = (r: Relayed) => {
    open.delete(r);
    const n = (perClient.get(r.address) ?? 1) - 1;
    if (n > 0) perClient.set(r.address, n);
    else perClient.delete(r.address);
  };
  /** Close the oldest evictable connection (of `address`, when given); false if none. */
  const evict = (address?: string): boolean => {
    let pick: Relayed | undefined;
    for (const r of open) {
      if (address !== undefined && r.address !== address) continue;
      if (!r.evictable) continue;
      if (!r.headersDone) {
        pick = r; // still sending headers: the first such is the oldest
        break;
      }
      if (!pick || r.lastActive < pick.lastActive) pick = r;
    }
    pick?.close();
    return pick !== undefined;
  };
  const relay = async (conn: Deno.TcpConn) => {
    const address = conn.remoteAddr.hostname;
    if ((perClient.get(address) ?? 0) >= all.maxPerClient && !evict(address)) {
      return conn.close();
    }
    if (open.size >= all.maxConnections && !evict()) return conn.close();
    const r = new Relayed(conn, address, all, forget);
    open.add(r);
    perClient.set(address, (perClient.get(address) ?? 0) + 1);
    try {
      // The server is connected to only once the first headers are complete: an idle or
      // slow client holds one descriptor, not three.
      const head = await firstHeaders(conn, (c) => r.fromClient(c), () => r.headersDone);
      if (!head || r.closed) return r.close();
      r.backend = await Deno.connect({ transport: "unix", path: backend });
      if (r.closed) return r.close();
      await writeAll(r.backend, head);
      await Promise.race([
        pump(conn, r.backend, (c) => r.fromClient(c)),
        pump(r.backend, conn, () => r.fromServer()),
      ]);
    } catch { /* a side closed or failed: the connection ends */ }
    r.close();
  };
  const closed = (async () => {
    while (!stopped) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch (e) {
        if (stopped || e instanceof Deno.errors.BadResource) break;
        // EMFILE and the like: let connections close, then accept again.
        await new Promise((ok) => setTimeout(ok, 50));
        continue;
      }
      relay(conn).catch(() => {});
    }
  })();
  return {
    closed,
    close() {
      if (stopped) return;
      stopped = true;
      try {
        listener.close();
      } catch { /* already closed */ }
      for (const r of [...open]) r.close();
    },
  };
}
