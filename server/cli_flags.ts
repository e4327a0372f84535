/**
 * Command-line flags derived from the tools' arguments: every argument is a flag of the
 * same name with `-` for `_` (`doc_types` -> `--doc-types`, `case_insensitive` ->
 * `--case-insensitive`); a boolean argument is a switch, a number a whole number, a list
 * comma-separated. A tool's {@link CliForm} adds positional arguments, one-letter flags and
 * the hidden old spellings (`--type`, `--documents`, `--ignore-case`, `--glob`, ...).
 *
 * Also here: the messages of bad command-line usage, in a terminal's terms (flags, not
 * argument names), with a suggestion for a mistyped flag.
 *
 * @module
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import type { CliForm, Flag, Flags } from "./tool.ts";
import { flagOf, UsageError } from "./tool.ts";

/** How a flag's text becomes an argument. */
type Kind = "boolean" | "int" | "list" | "string";

/** A flag named after a tool argument. */
export interface ArgFlag {
  /** The argument it sets. */
  arg: string;
  /** How its text is read. */
  kind: Kind;
  /** The bounds of a number. */
  min?: number;
  max?: number;
  /** The values of an enumeration. */
  values?: string[];
}

/** Arguments that are no flag: `--json` and `--fresh` (common to every command) set them. */
const NOT_FLAGS = new Set(["output_format", "wait_for_index"]);

/** The schema under `.optional()`, `.default()`, `.nullable()`. */
function inner(s: z.ZodType): z.ZodType {
  let t = s as unknown as { _zod: { def: { innerType?: unknown } } };
  while (t._zod.def.innerType) t = t._zod.def.innerType as typeof t;
  return t as unknown as z.ZodType;
}

/**
 * The flags named after a tool's arguments (records such as `filters` have none, nor do
 * the arguments its command line takes as positional arguments or flags of its own).
 */
export function argFlags(
  shape: z.ZodRawShape,
  cli?: Pick<CliForm, "positional" | "flags">,
): Record<string, ArgFlag> {
  const out: Record<string, ArgFlag> = {};
  for (const [arg, schema] of Object.entries(shape)) {
    if (NOT_FLAGS.has(arg) || cli?.positional?.includes(arg)) continue;
    if (cli?.flags?.[flagOf(arg)]) continue;
    const s = inner(schema as z.ZodType);
    const type = (s as unknown as { _zod: { def: { type: string } } })._zod.def.type;
    if (type === "boolean") out[flagOf(arg)] = { arg, kind: "boolean" };
    else if (type === "number") {
      const num = s as unknown as { minValue: number | null; maxValue: number | null };
      // `.int()` alone bounds a number by the safe integers: no range worth saying.
      const bound = (x: number | null) =>
        x === null || Math.abs(x) >= Number.MAX_SAFE_INTEGER ? undefined : x;
      out[flagOf(arg)] = { arg, kind: "int", min: bound(num.minValue), max: bound(num.maxValue) };
    } else if (type === "array") out[flagOf(arg)] = { arg, kind: "list" };
    else if (type === "enum") {
      out[flagOf(arg)] = {
        arg,
        kind: "string",
        values: (s as unknown as z.ZodEnum).options.map(String),
      };
    } else if (type === "string") out[flagOf(arg)] = { arg, kind: "string" };
  }
  return out;
}

/**
 * The `parseArgs` options of a command: its argument flags, its own flags, its old
 * spellings (each of the type of the flag it stands for) and the common flags.
 */
export function commandOptions(
  shape: z.ZodRawShape,
  cli: CliForm,
  common: Record<string, Flag>,
): Record<string, Flag> {
  const opts: Record<string, Flag> = {};
  for (const [flag, f] of Object.entries(argFlags(shape, cli))) {
    opts[flag] = { type: f.kind === "boolean" ? "boolean" : "string" };
  }
  Object.assign(opts, cli.flags);
  for (const [old, flag] of Object.entries(cli.aliases ?? {})) {
    const target = opts[flag];
    if (target) opts[old] = { type: target.type };
  }
  for (const [letter, flag] of Object.entries(cli.short ?? {})) {
    const target = opts[flag];
    if (target) opts[flag] = { ...target, short: letter };
  }
  return { ...opts, ...common };
}

/** The flags' values with every old spelling under the flag it stands for. */
export function withoutAliases(values: Flags, cli: CliForm): Flags {
  const out: Flags = { ...values };
  for (const [old, flag] of Object.entries(cli.aliases ?? {})) {
    if (out[old] !== undefined) out[flag] ??= out[old];
    delete out[old];
  }
  return out;
}

/**
 * A whole number from a flag, within the argument's bounds; a usage error names the flag
 * and the allowed range otherwise.
 */
export function intFlag(v: unknown, flag: string, min?: number, max?: number): number | undefined {
  if (v === undefined) return undefined;
  const range = min !== undefined && max !== undefined
    ? `between ${min} and ${max}`
    : min !== undefined
    ? `${min} or more`
    : "a whole number";
  if (typeof v !== "string" || !/^-?\d+$/.test(v.trim())) {
    throw new UsageError(`--${flag} must be ${range}, not "${v}"`);
  }
  const x = Number(v);
  if ((min !== undefined && x < min) || (max !== undefined && x > max)) {
    throw new UsageError(`--${flag} must be ${range}, not ${v}`);
  }
  return x;
}

/** A comma-separated list from a flag. */
export function listFlag(v: unknown): string[] | undefined {
  return typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : undefined;
}

/** The tool arguments the argument flags give (flags not given are left out). */
export function flagArgs(
  shape: z.ZodRawShape,
  cli: Pick<CliForm, "positional" | "flags">,
  values: Flags,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [flag, f] of Object.entries(argFlags(shape, cli))) {
    const v = values[flag];
    if (v === undefined) continue;
    out[f.arg] = f.kind === "int"
      ? intFlag(v, flag, f.min, f.max)
      : f.kind === "list"
      ? listFlag(v)
      : v;
  }
  return out;
}

/**
 * Arguments such as `--limit -3`: `parseArgs` takes `-3` for a flag; written
 * `--limit=-3`, the value reaches the range check instead.
 */
export function joinNegativeValues(argv: string[], options: Record<string, Flag>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    const name = a.startsWith("--") ? a.slice(2) : undefined;
    if (name && options[name]?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * The message of an unknown flag, with the nearest known one.
 *
 * @example
 * ```ts
 * import { unknownFlag } from "./cli_flags.ts";
 * unknownFlag("--limt", ["limit", "library"]); // "unknown flag --limt (did you mean --limit?)"
 * ```
 */
export function unknownFlag(given: string, known: string[]): string {
  const name = given.replace(/^-+/, "").replace(/=.*$/, "");
  const near = known.length ? closest(name, known) : undefined;
  const ok = near !== undefined && distance(name, near) <= Math.max(2, name.length / 3);
  return `unknown flag ${given.replace(/=.*$/, "")}${ok ? ` (did you mean --${near}?)` : ""}`;
}
