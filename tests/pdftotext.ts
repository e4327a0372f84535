/**
 * The text `pdftotext` (poppler) gives of one page of a PDF: the reference that PDF tests
 * compare pages against. Tests that use it are ignored when the command is missing
 * ({@linkcode noPdftotext}).
 *
 * @module
 */
import { assert } from "./assert.ts";
import { hasCommand, noteMissing } from "./have.ts";

/** True (and noted once) when `pdftotext` is not installed. */
export const noPdftotext: boolean = noteMissing(
  !(await hasCommand("pdftotext")),
  "pdftotext missing (apt-get install -y poppler-utils): PDF page tests not run",
);

/** The text of page `page` (1-based) of `file`, as `pdftotext -f P -l P` gives it. */
export async function pdftotextPage(file: string, page: number): Promise<string> {
  const out = await new Deno.Command("pdftotext", {
    args: ["-f", String(page), "-l", String(page), file, "-"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, `pdftotext failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
