/**
 * Where shelfmark keeps its data, and the `shelfmark.json` configuration of libraries.
 *
 * @module
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "./atomic_write.ts";
import { libraryFromPath } from "./paths.ts";
import type { Library } from "./types.ts";

/** The configuration file's content. */
export interface Config {
  /** Library roots with their names, and globs of what to index or leave out. */
  libraries: {
    name: string;
    path: string;
    description?: string;
    include?: string[];
    exclude?: string[];
    /** Front-matter fields indexed for `search` filters and `list_tags`. */
    fields?: string[];
    /** Index hidden files and folders (default false: listed as skipped, `hidden`). */
    index_hidden?: boolean;
    /** A git work tree whose writes are commits (default: detected from `.git`). */
    git?: boolean;
    /** Allow the write tools (write, edit, move, delete) in this library (default false). */
    write?: boolean;
  }[];
  /** Git settings of the libraries that are git work trees. */
  git?: GitConfig;
  /** Extra extractor plugin modules (paths or URLs). */
  extractors?: string[];
  /** Resource limits. */
  limits?: Limits;
  /**
   * The embedder for document vectors: `"default"` (offline, built in), `"none"`,
   * `"ollama:<model>"`, `"openai:<model>"`, `"onnx:<folder>"`, or an object with the URL and key.
   */
  embedder?: string | EmbedderConfig;
  /** OCR settings. */
  ocr?: OcrConfig;
  /**
   * A PostgreSQL database for the keyword index (`postgres://user@host:5432/db`; the
   * password from `PGPASSWORD` or `~/.pgpass`, never here). Default: SQLite FTS5 in the
   * data folder; the catalog stays there either way.
   */
  store?: string;
  /**
   * Where searches read the keyword index: a read-only streaming replica of `store`
   * (`postgres://user@replica:5432/db`, no password), while writes go to `store`.
   * Default: `store`.
   */
  store_read?: string;
  /**
   * This data folder's name in a shared PostgreSQL store (`laptop`): its libraries are
   * `laptop:Papers` there, kept apart from other machines' (a schema of their own).
   * Default: the host name (see {@link machineName}).
   */
  machine?: string;
}

/** An embedder named with its endpoint. */
export interface EmbedderConfig {
  /** `"default"`, `"none"`, `"ollama:<model>"`, `"openai:<model>"` or `"onnx:<folder>"`. */
  name: string;
  /** Base URL of the service (Ollama: `http://127.0.0.1:11434`; OpenAI: `https://api.openai.com/v1`). */
  url?: string;
  /** Name of the environment variable holding the API key (default `OPENAI_API_KEY`). */
  api_key_env?: string;
  /** Whether the model understands many languages (reported by `status`). */
  multilingual?: boolean;
  /** `onnx:` only: text put before each query (default: known from the model's name). */
  query_prefix?: string;
  /** `onnx:` only: text put before each document (default: known from the model's name). */
  document_prefix?: string;
  /** `onnx:` only: how token vectors become one (default: from the model folder or name). */
  pooling?: "mean" | "cls";
}

/** Git settings. */
export interface GitConfig {
  /** Author and committer of the vault's commits (default: git's `user.name`/`user.email`). */
  author?: { name: string; email: string };
}

/** OCR settings. */
export interface OcrConfig {
  /** Tesseract languages, e.g. `["eng"]` or `["eng", "deu"]` (default `["eng"]`). */
  languages?: string[];
  /**
   * Read scanned (image-only) PDF pages by OCR, in the background after the text pass
   * (default true).
   */
  pdf_pages?: boolean;
  /**
   * Read image files (PNG, JPEG, TIFF, ...) by OCR, in the background after the text pass
   * (default true); false leaves them found by name and metadata only (a photo collection).
   */
  images?: boolean;
  /** Scanned pages of one PDF read by OCR at most; the rest are skipped (default 500). */
  max_pages?: number;
}

/** Resource limits of indexing and searching. */
export interface Limits {
  /** Files larger than this many MiB are skipped (default 64). */
  max_file_mb?: number;
  /**
   * CPU time limit for extracting one file, in seconds (default 60): past 80 % of it the file
   * keeps what was read, marked partial and extracted again next run; its process is stopped
   * (`timeout`) only past four times it in wall time (see `wallLimitMs`). A file cut or
   * stopped is tried again by the next runs with twice the time each, up to 8 times it; then
   * not again until it changes.
   */
  file_timeout_s?: number;
  /** Extraction workers (default: cores, at most 4; 0 = in the main thread). */
  workers?: number;
  /**
   * Memory goal of indexing, in MiB: the proportional set size (PSS) of shelfmark's process
   * and its extraction processes together while an index run extracts files (default 600,
   * at least {@link MIN_INDEX_MEMORY_MB}). Files start beside those in flight only while the
   * tree leaves room for what they are expected to add (see `admissionMb` in
   * `shelf/load.ts`): more memory lets more files run at once, less makes them take turns
   * (one file always runs).
   */
  index_memory_mb?: number;
  /**
   * How long a tool call waits, in seconds, for the first index of a library that is still
   * being built before it answers from what is indexed so far (default 20; 0 never waits).
   */
  first_index_wait_s?: number;
  /**
   * Time limit of one keyword search on the search workers (`serve`), in seconds
   * (default 10): past it the search fails with `QUERY_TIMEOUT`.
   */
  query_timeout_s?: number;
}

/** A message for every issue a schema raises (wrong type and failed checks alike). */
function says(message: string) {
  return { error: message };
}

const EMBEDDER_NAME = /^(default|none|(ollama|openai):\S+|onnx:.+)$/;
const EMBEDDER_MESSAGE = `"embedder" must be "default", "none", "ollama:<model>", ` +
  `"openai:<model>", "onnx:<folder>" or an object {"name", "url", "api_key_env", ` +
  `"multilingual", "query_prefix", "document_prefix", "pooling"}`;

const GLOBS = says("must be an array of glob patterns");
const FIELDS = says("must be an array of up to 32 front-matter field names");
const LIBRARY_NAME = says('must be a name without "/"');
const FOLDER = says("must be a folder path");

const LibrarySchema = z.strictObject({
  name: z.string(LIBRARY_NAME).regex(/^[^/\\\0]+$/, LIBRARY_NAME),
  path: z.string(FOLDER).min(1, FOLDER),
  description: z.string(says("must be a string")).optional(),
  include: z.array(z.string(GLOBS).min(1, GLOBS), GLOBS).optional(),
  exclude: z.array(z.string(GLOBS).min(1, GLOBS), GLOBS).optional(),
  fields: z.array(
    z.string(FIELDS).max(64, FIELDS).refine((f) => f.trim() !== "", FIELDS),
    FIELDS,
  ).max(32, FIELDS).optional(),
  index_hidden: z.boolean(says("must be true or false")).optional(),
  git: z.boolean(says("must be true or false")).optional(),
  write: z.boolean(says("must be true or false")).optional(),
}, says("must be an object"));

const AUTHOR = says('must be an object {"name", "email"}');
const AUTHOR_NAME = says('must be a name without "<", ">" or a line break');
const EMAIL = says("must be an email address");
const GitSchema = z.strictObject({
  author: z.strictObject({
    name: z.string(AUTHOR_NAME).min(1, AUTHOR_NAME).max(200, AUTHOR_NAME)
      .regex(/^[^<>\n\0]+$/, AUTHOR_NAME),
    email: z.string(EMAIL).max(200, EMAIL).regex(/^[^<>\s\0]+@[^<>\s\0]+$/, EMAIL),
  }, AUTHOR).optional(),
}, says("must be an object"));

/**
 * The least memory goal of indexing (`limits.index_memory_mb`) a configuration may set: the
 * index process holds 150-210 MiB and an idle extraction process 70-100 before a file, so
 * under it the tree is over its goal with a single small file in flight.
 */
export const MIN_INDEX_MEMORY_MB = 300;
/** The largest memory goal of indexing (1 TiB): a goal over the machine's memory means no limit. */
export const MAX_INDEX_MEMORY_MB = 1_048_576;

/** A number limit with its allowed range. */
function limit(min: number, max: number) {
  const range = says(`must be a number from ${min} to ${max}`);
  return z.number(range).min(min, range).max(max, range).optional();
}

const LimitsSchema = z.strictObject({
  max_file_mb: limit(1, 4096),
  file_timeout_s: limit(1, 3600),
  workers: limit(0, 64),
  index_memory_mb: limit(MIN_INDEX_MEMORY_MB, MAX_INDEX_MEMORY_MB),
  first_index_wait_s: limit(0, 600),
  query_timeout_s: limit(1, 600),
}, says("must be an object"));

const EMBEDDER = says(EMBEDDER_MESSAGE);
const EmbedderSchema = z.union([
  z.string(EMBEDDER).regex(EMBEDDER_NAME, EMBEDDER),
  z.strictObject({
    name: z.string(EMBEDDER).regex(EMBEDDER_NAME, EMBEDDER),
    url: z.string(says("must be a string")).regex(/^https?:\/\//, says("must be an http(s) URL"))
      .optional(),
    api_key_env: z.string(says("must be a string")).optional(),
    multilingual: z.boolean(says("must be true or false")).optional(),
    query_prefix: z.string(says("must be a string")).optional(),
    document_prefix: z.string(says("must be a string")).optional(),
    pooling: z.enum(["mean", "cls"], says('must be "mean" or "cls"')).optional(),
  }),
], EMBEDDER);

const LANGUAGES = says('must be a non-empty array of Tesseract codes such as "eng"');
const OcrSchema = z.strictObject({
  languages: z.array(z.string(LANGUAGES).regex(/^[a-z_]{3,8}$/, LANGUAGES), LANGUAGES)
    .min(1, LANGUAGES).optional(),
  pdf_pages: z.boolean(says("must be true or false")).optional(),
  images: z.boolean(says("must be true or false")).optional(),
  max_pages: limit(0, 1_000_000),
}, says("must be an object"));

const StoreUrlSchema = z.string(says("must be a string")).superRefine((url, ctx) => {
  const problem = storeUrlProblem(url);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const MACHINE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const MACHINE = says("must be a name of lowercase letters, digits, _ and - (up to 63)");

const MODULES = says("must be an array of module paths");
const ConfigSchema = z.strictObject({
  $schema: z.unknown().optional(),
  libraries: z.array(LibrarySchema, says("must be an array")).default([]),
  extractors: z.array(z.string(MODULES), MODULES).default([]),
  limits: LimitsSchema.default({}),
  embedder: EmbedderSchema.optional(),
  ocr: OcrSchema.optional(),
  git: GitSchema.optional(),
  store: StoreUrlSchema.optional(),
  store_read: StoreUrlSchema.optional(),
  machine: z.string(MACHINE).regex(MACHINE_NAME, MACHINE).optional(),
}, says("must be a JSON object")).refine((c) => !c.store_read || c.store, {
  message: '"store_read" needs "store" (the primary that writes go to)',
  path: [],
});

/** A key's place from a zod issue path: `libraries[0].include`. */
function dotted(path: readonly PropertyKey[]): string {
  return path.map((k, i) => typeof k === "number" ? `[${k}]` : i ? `.${String(k)}` : String(k))
    .join("");
}

/**
 * The issue to report: inside a union (the embedder, a name or an object), the issue of the
 * alternative the value's type matched, else the union's own message.
 */
function firstIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union") return issue;
  const matched = issue.errors.find((alt) =>
    !alt.some((i) => i.code === "invalid_type" && i.path.length === 0)
  );
  const inner = matched?.[0];
  return inner ? firstIssue({ ...inner, path: [...issue.path, ...inner.path] }) : issue;
}

/**
 * One sentence for a zod issue, naming the key: `unknown key "limits.speed"`,
 * `limits.workers must be ...`, `"libraries" must be an array` (a top-level key is quoted).
 */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key "${dotted([...issue.path, issue.keys[0]!])}"`;
  }
  if (!issue.message.startsWith("must ")) return issue.message;
  // A message about an array ("must be an array of glob patterns") names the array, not
  // the element that failed.
  const path = /^must be (an|a non-empty) array/.test(issue.message)
    ? issue.path.slice(0, issue.path.findLastIndex((k) => typeof k !== "number") + 1)
    : issue.path;
  if (!path.length) return issue.message;
  return `${path.length === 1 ? `"${dotted(path)}"` : dotted(path)} ${issue.message}`;
}

/**
 * The data directory: `--data`, else `$SHELFMARK_HOME`, else the user's data folder
 * (`$XDG_DATA_HOME/shelfmark`, `~/.local/share/shelfmark`, `~/Library/Application Support/shelfmark`,
 * `%APPDATA%\shelfmark`).
 *
 * @param flag the `--data` folder, when given
 * @returns the absolute path of the data directory
 * @example
 * ```ts
 * import { dataDir } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(dataDir("/srv/shelf"), "/srv/shelf");
 * assert.equal(dataDir("shelf-data"), `${Deno.cwd()}/shelf-data`);
 * ```
 */
export function dataDir(flag?: string): string {
  if (flag) return resolve(flag);
  const env = Deno.env.get("SHELFMARK_HOME");
  if (env) return resolve(env);
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  if (Deno.build.os === "windows") {
    return join(Deno.env.get("APPDATA") ?? join(home, "AppData", "Roaming"), "shelfmark");
  }
  if (Deno.build.os === "darwin") {
    return join(home, "Library", "Application Support", "shelfmark");
  }
  return join(Deno.env.get("XDG_DATA_HOME") ?? join(home, ".local", "share"), "shelfmark");
}

/**
 * Why a store URL (`"store"`, `--store`) is refused, or `undefined` when it is fine: a
 * `postgres://` URL without a password (the password comes from `PGPASSWORD` or
 * `~/.pgpass`, never from the file or the command line, where others may read it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { storeUrlProblem } from "./config.ts";
 * assert.equal(storeUrlProblem("postgres://ann@db:5432/shelf"), undefined);
 * assert.match(storeUrlProblem("postgres://ann:pw@db/shelf") ?? "", /must not hold a password/);
 * ```
 */
export function storeUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be a URL like postgres://user@host:5432/db";
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") {
    return "must be a postgres:// URL (postgres://user@host:5432/db)";
  }
  if (u.password || u.searchParams.has("password")) {
    return "must not hold a password: set PGPASSWORD or put it in ~/.pgpass";
  }
  if (!u.hostname && !u.searchParams.has("host")) return "must name a host";
  return undefined;
}

/**
 * This data folder's name in a shared store: the config's `machine`, else the host name
 * (lowercased, other characters than letters, digits, `_` and `-` as `-`).
 *
 * @param config the configuration
 * @param hostname the host name (default: this machine's)
 * @returns a name `"machine"` accepts
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { machineName } from "./config.ts";
 * assert.equal(machineName({ libraries: [], machine: "nas" }), "nas");
 * assert.equal(machineName({ libraries: [] }, "Anns-MacBook.local"), "anns-macbook-local");
 * ```
 */
export function machineName(config: Config, hostname?: string): string {
  if (config.machine) return config.machine;
  let host = hostname;
  try {
    host ??= Deno.hostname();
  } catch {
    host = ""; // no permission to read it: the fallback name below
  }
  const name = host.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "")
    .slice(0, 63);
  return name || "machine";
}

/** An error in the configuration file, naming the bad key or value. */
export class ConfigError extends Error {
  /**
   * Create a configuration error.
   *
   * @param message what is wrong, quoting the key
   */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * Read and validate `shelfmark.json` in `dir` (an empty config when there is none).
 *
 * @param dir the data directory
 * @returns the configuration
 * @throws {ConfigError} when the file is not valid JSON or a key or value is wrong
 * @example
 * ```ts
 * import { loadConfig } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(loadConfig(dir), { libraries: [] });
 *
 * await Deno.writeTextFile(`${dir}/shelfmark.json`, JSON.stringify({ librarys: [] }));
 * assert.throws(() => loadConfig(dir), { name: "ConfigError", message: /unknown key "librarys"/ });
 * ```
 */
export function loadConfig(dir: string): Config {
  const file = join(dir, "shelfmark.json");
  if (!existsSync(file)) return { libraries: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(Deno.readTextFileSync(file));
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`${file}: ${issueMessage(firstIssue(parsed.error.issues[0]!))}`);
  }
  const { $schema: _, ...config } = parsed.data;
  return config;
}

/**
 * Write `shelfmark.json` in `dir`, atomically: a full disk or a crash leaves the previous
 * file whole (it holds every library), never a cut one.
 */
export function saveConfig(dir: string, config: Config): void {
  mkdirSync(dir, { recursive: true });
  writeFileAtomicSync(join(dir, "shelfmark.json"), JSON.stringify(config, null, 2) + "\n");
}

/** The libraries of a config, with absolute roots. */
export function configLibraries(config: Config): Library[] {
  return config.libraries.map((l) => ({
    name: l.name,
    root: resolve(l.path),
    description: l.description,
    include: l.include,
    exclude: l.exclude,
    fields: l.fields,
    index_hidden: l.index_hidden,
    git: l.git,
  }));
}

/**
 * Add folders named on the command line to the config (a folder already there keeps its
 * name; a new folder whose base name is taken gets `-2`, `-3`, ...). Returns their libraries.
 */
export function addFolders(config: Config, folders: string[]): Library[] {
  const out: Library[] = [];
  for (const folder of folders) {
    const lib = libraryFromPath(folder);
    const same = config.libraries.find((l) => resolve(l.path) === lib.root);
    if (same) {
      out.push({ name: same.name, root: lib.root, description: same.description });
      continue;
    }
    let name = lib.name;
    for (let i = 2; config.libraries.some((l) => l.name === name); i++) name = `${lib.name}-${i}`;
    config.libraries.push({ name, path: lib.root });
    out.push({ name, root: lib.root });
  }
  return out;
}
