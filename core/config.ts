/**
 * Where shelfmark keeps its data, and the `shelfmark.json` configuration of libraries.
 *
 * @module
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
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
  }[];
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

/** OCR settings. */
export interface OcrConfig {
  /** Tesseract languages, e.g. `["eng"]` or `["eng", "deu"]` (default `["eng"]`). */
  languages?: string[];
}

/** Resource limits of indexing. */
export interface Limits {
  /** Files larger than this many MiB are skipped (default 64). */
  max_file_mb?: number;
  /** Time limit for extracting one file, in seconds (default 60). */
  file_timeout_s?: number;
  /** Extraction workers (default: cores, at most 4; 0 = in the main thread). */
  workers?: number;
  /**
   * How long a tool call waits, in seconds, for the first index of a library that is still
   * being built before it answers from what is indexed so far (default 20; 0 never waits).
   */
  first_index_wait_s?: number;
}

const KEYS = new Set(["$schema", "libraries", "extractors", "limits", "embedder", "ocr"]);
const EMBEDDER_KEYS = new Set([
  "name",
  "url",
  "api_key_env",
  "multilingual",
  "query_prefix",
  "document_prefix",
  "pooling",
]);
const EMBEDDER_NAME = /^(default|none|(ollama|openai):\S+|onnx:.+)$/;
const LIB_KEYS = new Set(["name", "path", "description", "include", "exclude", "fields"]);
const LIMIT_KEYS: Record<string, [number, number]> = {
  max_file_mb: [1, 4096],
  file_timeout_s: [1, 3600],
  workers: [0, 64],
  first_index_wait_s: [0, 600],
};

function globs(file: string, where: string, v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((g) => typeof g !== "string" || !g)) {
    throw new ConfigError(`${file}: ${where} must be an array of glob patterns`);
  }
  return v as string[];
}

function fieldNames(file: string, where: string, v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (
    !Array.isArray(v) || v.length > 32 ||
    v.some((f) => typeof f !== "string" || !f.trim() || f.length > 64)
  ) {
    throw new ConfigError(
      `${file}: ${where} must be an array of up to 32 front-matter field names`,
    );
  }
  return v as string[];
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
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`${file}: must be a JSON object`);
  }
  const obj = raw as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!KEYS.has(k)) throw new ConfigError(`${file}: unknown key "${k}"`);
  }
  const libs = obj.libraries ?? [];
  if (!Array.isArray(libs)) throw new ConfigError(`${file}: "libraries" must be an array`);
  const libraries = libs.map((l, i) => {
    if (typeof l !== "object" || l === null) {
      throw new ConfigError(`${file}: libraries[${i}] must be an object`);
    }
    for (const k of Object.keys(l)) {
      if (!LIB_KEYS.has(k)) throw new ConfigError(`${file}: unknown key "libraries[${i}].${k}"`);
    }
    const { name, path, description, include, exclude, fields } = l as Record<string, unknown>;
    if (typeof name !== "string" || !/^[^/\\\0]+$/.test(name)) {
      throw new ConfigError(`${file}: libraries[${i}].name must be a name without "/"`);
    }
    if (typeof path !== "string" || !path) {
      throw new ConfigError(`${file}: libraries[${i}].path must be a folder path`);
    }
    return {
      name,
      path,
      description: typeof description === "string" ? description : undefined,
      include: globs(file, `libraries[${i}].include`, include),
      exclude: globs(file, `libraries[${i}].exclude`, exclude),
      fields: fieldNames(file, `libraries[${i}].fields`, fields),
    };
  });
  const extractors = obj.extractors ?? [];
  if (!Array.isArray(extractors) || extractors.some((e) => typeof e !== "string")) {
    throw new ConfigError(`${file}: "extractors" must be an array of module paths`);
  }
  const limits = obj.limits ?? {};
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw new ConfigError(`${file}: "limits" must be an object`);
  }
  for (const [k, v] of Object.entries(limits)) {
    const range = LIMIT_KEYS[k];
    if (!range) throw new ConfigError(`${file}: unknown key "limits.${k}"`);
    if (typeof v !== "number" || !Number.isFinite(v) || v < range[0] || v > range[1]) {
      throw new ConfigError(
        `${file}: limits.${k} must be a number from ${range[0]} to ${range[1]}`,
      );
    }
  }
  return {
    libraries,
    extractors: extractors as string[],
    limits: limits as Limits,
    embedder: checkEmbedder(file, obj.embedder),
    ocr: checkOcr(file, obj.ocr),
  };
}

function checkEmbedder(file: string, v: unknown): Config["embedder"] {
  if (v === undefined) return undefined;
  const bad = () =>
    new ConfigError(
      `${file}: "embedder" must be "default", "none", "ollama:<model>", "openai:<model>", ` +
        `"onnx:<folder>" or an object {"name", "url", "api_key_env", "multilingual", ` +
        `"query_prefix", "document_prefix", "pooling"}`,
    );
  if (typeof v === "string") {
    if (!EMBEDDER_NAME.test(v)) throw bad();
    return v;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad();
  for (const k of Object.keys(v)) {
    if (!EMBEDDER_KEYS.has(k)) throw new ConfigError(`${file}: unknown key "embedder.${k}"`);
  }
  const e = v as Record<string, unknown>;
  if (typeof e.name !== "string" || !EMBEDDER_NAME.test(e.name)) throw bad();
  for (const k of ["url", "api_key_env", "query_prefix", "document_prefix"]) {
    if (e[k] !== undefined && typeof e[k] !== "string") {
      throw new ConfigError(`${file}: embedder.${k} must be a string`);
    }
  }
  if (e.url !== undefined && !/^https?:\/\//.test(e.url as string)) {
    throw new ConfigError(`${file}: embedder.url must be an http(s) URL`);
  }
  if (e.multilingual !== undefined && typeof e.multilingual !== "boolean") {
    throw new ConfigError(`${file}: embedder.multilingual must be true or false`);
  }
  if (e.pooling !== undefined && e.pooling !== "mean" && e.pooling !== "cls") {
    throw new ConfigError(`${file}: embedder.pooling must be "mean" or "cls"`);
  }
  return e as unknown as EmbedderConfig;
}

function checkOcr(file: string, v: unknown): OcrConfig | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new ConfigError(`${file}: "ocr" must be an object`);
  }
  for (const k of Object.keys(v)) {
    if (k !== "languages") throw new ConfigError(`${file}: unknown key "ocr.${k}"`);
  }
  const langs = (v as OcrConfig).languages;
  if (
    langs !== undefined &&
    (!Array.isArray(langs) || !langs.length || langs.some((l) => !/^[a-z_]{3,8}$/.test(l)))
  ) {
    throw new ConfigError(
      `${file}: ocr.languages must be a non-empty array of Tesseract codes such as "eng"`,
    );
  }
  return v as OcrConfig;
}

/** Write `shelfmark.json` in `dir`. */
export function saveConfig(dir: string, config: Config): void {
  mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(join(dir, "shelfmark.json"), JSON.stringify(config, null, 2) + "\n");
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
