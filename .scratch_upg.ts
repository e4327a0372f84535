import pg from "pg";
const old = (await import("/tmp/pgpass/old_sql.ts")).SCHEMA;
const now = (await import("./stores/postgres_sql.ts")).SCHEMA;
const c = new pg.Client({ connectionString: "postgres://shelfmark@127.0.0.1:56500/upg" });
await c.connect();
await c.query(old);
await c.query("INSERT INTO kw_terms VALUES ('x', 1); INSERT INTO kw_totals VALUES ('L', 1, 5)");
await c.query(now);
await c.query(now);
console.log((await c.query("SELECT * FROM kw_terms")).rows, (await c.query("SELECT * FROM kw_totals")).rows,
  (await c.query("SELECT column_name FROM information_schema.columns WHERE table_name='kw_docs'")).rows.map((r) => r.column_name));
await c.end();
