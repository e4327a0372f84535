/**
 * A test server: `serveHttp` on a one-file library with the connection limits given as
 * JSON in argv[1]; prints `port <n>` once listening. Run by `idle_sockets_test.ts` under
 * `prlimit`.
 *
 * @module
 */
import { join } from "node:path";
import { serveHttp } from "../../server/http.ts";
import { openTestShelf } from "../shelf_helper.ts";

const base = Deno.args[0]!;
const limits = JSON.parse(Deno.args[1] ?? "{}");
const lib = join(base, "lib");
await Deno.mkdir(lib, { recursive: true });
await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nText.\n");
const t = await openTestShelf({ base, folders: [lib] });
await t.shelf.index();
const http = serveHttp(t.shelf, { port: 0, limits });
console.log(`port ${http.port}`);
await http.finished;
