/**
 * One index run of a shelf in its own process: `index_once.ts DATA [FOLDER]` prints the
 * run's state, last error, indexed paths and skipped files as JSON. The hardening tests
 * run it with fewer privileges or file descriptors than the test has.
 *
 * @module
 */
import { Shelf } from "../../shelf/shelf.ts";
import { partsOf } from "../../shelf/_parts.ts";

const [data, folder] = Deno.args;
const shelf = await Shelf.open({
  data: data!,
  folders: folder ? [folder] : undefined,
  embedder: "none",
  workers: 0,
  log: () => {},
});
await shelf.index().catch(() => {});
console.log(JSON.stringify({
  state: shelf.status.state,
  last_error: shelf.status.last_error,
  paths: partsOf(shelf).catalog.paths().sort(),
  skipped: partsOf(shelf).catalog.skipped().map((s) => [s.path, s.reason]).sort(),
}));
await shelf.close();
