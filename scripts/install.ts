/**
 * `deno task install`: put a `shelfmark` command on the PATH that runs this checkout.
 *
 * It writes a small launcher to `$DENO_INSTALL_ROOT/bin` (default `~/.deno/bin`, where
 * `deno install -g` puts commands) that runs `server/cli.ts` with this checkout's
 * `deno.json`, so the lock file and npm overrides of the checkout apply. `deno install -g`
 * resolves npm packages afresh and ignores `package.json` overrides, which fails where a
 * registry lacks a platform package of an optional dependency.
 *
 * Usage: `deno task install [--root DIR]`
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const checkout = dirname(dirname(fileURLToPath(import.meta.url)));
const i = Deno.args.indexOf("--root");
const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
const root = i >= 0 ? Deno.args[i + 1]! : Deno.env.get("DENO_INSTALL_ROOT") ?? join(home, ".deno");
const bin = join(root, "bin");
await Deno.mkdir(bin, { recursive: true });
const config = join(checkout, "deno.json");
const cli = join(checkout, "server", "cli.ts");
const windows = Deno.build.os === "windows";
const file = join(bin, windows ? "shelfmark.cmd" : "shelfmark");
const deno = Deno.execPath();
await Deno.writeTextFile(
  file,
  windows
    ? `@echo off\r\n"${deno}" run -A --config "${config}" "${cli}" %*\r\n`
    : `#!/bin/sh\nexec "${deno}" run -A --config "${config}" "${cli}" "$@"\n`,
  { mode: 0o755 },
);
const onPath = (Deno.env.get("PATH") ?? "").split(windows ? ";" : ":").includes(bin);
console.log(`Installed ${file}`);
if (!onPath) console.log(`Add ${bin} to your PATH to run \`shelfmark\`.`);
