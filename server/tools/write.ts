/**
 * `write`: create or overwrite a file in a writable library (hidden unless writing is on).
 *
 * @module
 */
import { z } from "zod";
import { defineTool, needArgs, UsageError } from "../tool.ts";
import { ifMatchArg, messageArg, shown, vaultOut, vaultPath, vaultTail } from "./_vault.ts";
import { MAX_WRITE_BYTES } from "../../shelf/vault.ts";
import { Buffer } from "node:buffer";

const USAGE = `shelfmark write PATH (--text TEXT | --file LOCAL_FILE) [--if-match V] [--message M]
  --write LIBRARY enables writing in LIBRARY for this run (or "write": true in shelfmark.json).
  --file sends a local file's bytes (any type).`;

/** The `write` tool. */
export const write = defineTool({
  name: "write",
  title: "Write a file",
  readOnly: false,
  vault: true,
  waitsForIndex: false,
  description:
    "Create or overwrite a file in a writable library; indexed before the answer. Markdown/text as text (front_matter: an object for .md), other types as base64.",
  input: {
    path: vaultPath,
    text: z.string().max(MAX_WRITE_BYTES).optional().describe("Content as text"),
    base64: z.string().max(Math.ceil(MAX_WRITE_BYTES / 3) * 4 + 8).optional().describe(
      "Content as base64 (PDF, images, office files; max 4 MiB)",
    ),
    front_matter: z.record(z.string(), z.unknown()).optional().describe(
      "Markdown: YAML front matter (replaces any in text)",
    ),
    if_match: ifMatchArg,
    message: messageArg,
  },
  output: { path: z.string(), created: z.boolean(), bytes: z.number().int(), ...vaultOut },
  async run(shelf, a) {
    const r = await shelf.writeFile({
      path: a.path,
      text: a.text,
      base64: a.base64,
      frontMatter: a.front_matter,
      ifMatch: a.if_match,
      message: a.message,
    });
    return { ...r, path: shown(shelf, r.path) };
  },
  markdown(r) {
    return `${r.created ? "Created" : "Overwrote"} ${r.path} (${r.bytes} bytes). ${vaultTail(r)}`;
  },
  cli: {
    synopsis: "write PATH",
    summary: "create or overwrite a file (with --write LIBRARY)",
    usage: USAGE,
    positional: ["path"],
    flags: { file: { type: "string" } },
    args(pos, flags) {
      needArgs(pos, 1, "PATH", USAGE);
      const file = flags.file as string | undefined;
      if (file === undefined) return { path: pos[0] };
      let bytes: Uint8Array;
      try {
        bytes = Deno.readFileSync(file);
      } catch (e) {
        throw new UsageError(`--file ${file}: cannot read it (${(e as Error).name})`);
      }
      return { path: pos[0], base64: Buffer.from(bytes).toString("base64") };
    },
  },
});
