/**
 * Credentials taken out of any text the PostgreSQL store shows (its URL is checked in
 * `core/config.ts`, `storeUrlProblem`: it never holds a password).
 *
 * @module
 */

/**
 * A text with credentials taken out: the password of any `postgres://user:password@` URL
 * and the value of `PGPASSWORD` become `***`.
 *
 * @param text an error message or a log line
 * @returns the text, safe to show
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redact } from "./postgres_url.ts";
 * assert.equal(redact("no route to postgres://ann:s3cret@db/x"), "no route to postgres://ann:***@db/x");
 * ```
 */
export function redact(text: string): string {
  let out = text.replace(/(postgres(?:ql)?:\/\/[^:@/\s]*):[^@\s]*@/gi, "$1:***@")
    .replace(/([?&]password=)[^&\s]*/gi, "$1***");
  let secret: string | undefined;
  try {
    secret = Deno.env.get("PGPASSWORD");
  } catch {
    // no permission to read the environment: nothing of it can be in the text
  }
  if (secret && secret.length >= 3) out = out.replaceAll(secret, "***");
  return out;
}
