/**
 * A real PostgreSQL 15 for tests, started with `scripts/pg_local.sh` in a temporary
 * folder and stopped after; tests that need it are ignored (with the reason logged) where
 * the binaries are missing (`apt-get install postgresql-15`; `.ci/run` installs it).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
// @ts-types="@types/pg"
import pg from "pg";
import { noteMissing } from "./have.ts";

const SCRIPT = fileURLToPath(new URL("../scripts/pg_local.sh", import.meta.url));

/** True when PostgreSQL 15 cannot run here: the tests that need it are ignored. */
export const noPostgres: boolean = noteMissing(
  !existsSync("/usr/lib/postgresql/15/bin/initdb") && !existsSync(Deno.env.get("PG_BIN") ?? "/-"),
  "PostgreSQL 15 is not installed (apt-get install postgresql-15): PostgreSQL store tests",
);

async function script(...args: string[]): Promise<string> {
  const out = await new Deno.Command(SCRIPT, { args, stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    throw new Error(`pg_local.sh ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/**
 * A port to start a cluster on: below Linux's ephemeral range (32768-60999), so that no
 * outgoing connection holds it (a port in that range may be some connection's local port,
 * which the server cannot bind and the script's check for a listener does not see), and
 * random, as test files start clusters in parallel.
 */
function randomPort(): number {
  return 20000 + Math.floor(Math.random() * 12000);
}

/** A PostgreSQL cluster of a test, with a database per use. */
export class PgServer {
  /** The cluster's folder. */
  readonly dir: string;
  /** The URL of its `shelfmark` database. */
  readonly url: string;
  #made = 0;

  private constructor(dir: string, url: string) {
    this.dir = dir;
    this.url = url;
  }

  /**
   * A cluster started in a new temporary folder on a random port, tried again in a new folder
   * on another port when it fails: another process (a parallel test file, a second checkout's
   * tests) may bind the port first ("Address already in use"). A failed attempt's folder is
   * removed; the last failure's error carries the end of its server log.
   */
  private static async started(
    prefix: string,
    start: (dir: string, port: number) => Promise<string>,
  ): Promise<PgServer> {
    for (let attempt = 1;; attempt++) {
      const dir = await Deno.makeTempDir({ prefix });
      try {
        return new PgServer(dir, await start(dir, randomPort()));
      } catch (e) {
        const log = await Deno.readTextFile(`${dir}/server.log`).catch(() => "");
        await script("stop", dir).catch(() => {});
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        if (attempt === 3) {
          throw new Error(
            `${(e as Error).message}\nserver.log:\n${log.split("\n").slice(-8).join("\n")}`,
          );
        }
      }
    }
  }

  /** Start a new cluster in a temporary folder, on a port of its own. */
  static start(): Promise<PgServer> {
    return PgServer.started("shelfmark-pg-", (dir, port) => script("start", dir, String(port)));
  }

  /** A new, empty database; its URL. */
  async database(): Promise<string> {
    const name = `t${++this.#made}`;
    const c = new pg.Client({ connectionString: this.url });
    await c.connect();
    try {
      await c.query(`CREATE DATABASE ${name}`);
    } finally {
      await c.end();
    }
    return this.url.replace(/\/shelfmark$/, `/${name}`);
  }

  /** A streaming replica of this cluster (`pg_basebackup -R`), started in a folder of its own. */
  replica(): Promise<PgServer> {
    return PgServer.started(
      "shelfmark-pg-replica-",
      (dir, port) => script("replica", this.dir, dir, String(port)),
    );
  }

  /** Stop the cluster and remove its folder. */
  async stop(): Promise<void> {
    await script("stop", this.dir);
    await Deno.remove(this.dir, { recursive: true });
  }
}

/**
 * The rows of one query on a database (a connection of its own, closed after).
 *
 * @param url the database's URL
 * @param text the SQL
 * @param params its `$1`, `$2`, ... values
 */
export async function pgRows<T extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

/**
 * Wait until a streaming replica has replayed its primary's WAL up to now: polled every
 * 100 ms, no time limit of its own (the test runner's is the bound).
 *
 * @param primary a database's URL on the primary
 * @param replica a database's URL on the replica
 */
export async function replayed(primary: string, replica: string): Promise<void> {
  const lsn = (await pgRows(primary, "SELECT pg_current_wal_lsn()::text AS lsn"))[0]!.lsn;
  for (;;) {
    const behind = (await pgRows(
      replica,
      "SELECT coalesce(pg_last_wal_replay_lsn() < $1::pg_lsn, true) AS behind",
      [lsn],
    ))[0]!.behind;
    if (!behind) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
