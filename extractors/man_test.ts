import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { sniff } from "../core/sniff.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { hasCommand, noteMissing } from "../tests/have.ts";
import { man } from "./man.ts";
import { renderMan } from "./_man_render.ts";
import { builtinExtractors } from "./mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A page using the macros, requests and escapes pages use, with its rendering checked by eye against `groff -man -Tutf8`. */
const SAMPLE = `.\\" A sample page for the tests
'\\" t
.de Xx
\\fI\\\\$1\\fP(\\\\$2)\\\\$3
..
.ds Pn wombat
.TH SAMPLE 1 "2024-01-31" "sample 1.0" "User Commands"
.SH NAME
sample \\- frobnicate \\*(Pn files \\(em quickly
.SH SYNOPSIS
.B sample
[\\fB\\-v\\fR]
.IR file ...
.SH DESCRIPTION
.B sample
reads each
.I file
and writes\\ it back; see
.BR ls (1)
and
.Xx cat 1 .
A backslash is written \\e and a dash \\- or \\(en; \\&.dot stays.
.PP
.if n This line is for terminals.
.if t This line is for typesetters.
.ie \\n(.g Groff it is.
.el Not groff.
.SS Options
.TP
.BR \\-v ", " \\-\\-verbose
Say more about what is done, at such length that the line has to be wrapped onto a second line.
.TP 4
.B \\-q
Be quiet.
.IP \\(bu 2
A bullet item.
.RS
.nf
indented  verbatim
  text
.fi
.RE
.SS Table
.TS
tab(;);
l l.
Name;Meaning
\\fBred\\fR;stop
T{
green light
T};go
.TE
.SH SEE ALSO
.UR https://example.org/sample
The sample home page
.UE .
`;

Deno.test("renderMan lays a page out as man does: sections, fonts, tags, escapes, strings, macros, tables", () => {
  const page = renderMan(SAMPLE);
  assertEquals(page.title, "sample(1) - frobnicate wombat files \u2014 quickly");
  assertEquals(page.headings.map((h) => [h.level, h.title, h.line]), [
    [1, "NAME", 1],
    [1, "SYNOPSIS", 4],
    [1, "DESCRIPTION", 7],
    [2, "Options", 13],
    [2, "Table", 24],
    [1, "SEE ALSO", 29],
  ]);
  assertEquals(page.lines, [
    "NAME",
    "       sample - frobnicate wombat files \u2014 quickly",
    "",
    "SYNOPSIS",
    "       sample [-v] file...",
    "",
    "DESCRIPTION",
    "       sample reads each file and writes it back; see ls(1) and cat(1). A",
    "       backslash is written \\ and a dash - or \u2013; .dot stays.",
    "",
    "       This line is for terminals. Groff it is.",
    "",
    "   Options",
    "       -v, --verbose",
    "              Say more about what is done, at such length that the line has to",
    "              be wrapped onto a second line.",
    "",
    "       -q  Be quiet.",
    "",
    "       \u2022 A bullet item.",
    "         indented  verbatim",
    "           text",
    "",
    "   Table",
    "       Name         Meaning",
    "       red          stop",
    "       green light  go",
    "",
    "SEE ALSO",
    "       The sample home page <https://example.org/sample>.",
    "",
    "User Commands  sample 1.0  2024-01-31",
  ]);
});

Deno.test("sniff: troff source is text/troff (first request .TH, or after comments); other text is not", () => {
  assertEquals(sniff(enc(SAMPLE)).mimeType, "text/troff");
  assertEquals(sniff(enc(".TH LS 1\n.SH NAME\nls \\- list\n")).mimeType, "text/troff");
  assertEquals(sniff(enc(".so man3/printf.3\n")).mimeType, "text/troff");
  assertEquals(sniff(enc("Plain text.\n.TH is mentioned here\n")).mimeType, "text/plain");
  assertEquals(sniff(enc(".gitignore holds patterns\nnode_modules\n")).mimeType, "text/plain");
});

Deno.test("man(): .1 files that are troff, any file sniffed as troff; a .1 that is not troff is left to text", () => {
  const reg = new ExtractorRegistry();
  for (const ex of builtinExtractors()) reg.register(ex);
  const input = (path: string, text: string) => ({
    path,
    extension: path.includes(".") ? path.slice(path.lastIndexOf(".")) : "",
    bytes: enc(text),
  });
  assertEquals(reg.select(input("l/sample.1", SAMPLE))?.name, "man");
  assertEquals(reg.select(input("l/sample.3pm", SAMPLE))?.name, "man");
  assertEquals(reg.select(input("l/SAMPLE", SAMPLE))?.name, "man");
  assertEquals(reg.select(input("l/changelog.1", "Version 1.1\n\n* fixes\n"))?.name, "text");
});

Deno.test("man(): title, outline and text of an extracted page; .so aliases and mdoc pages read too", async () => {
  const doc = await man().extract({ path: "l/sample.1", extension: ".1", bytes: enc(SAMPLE) });
  assertEquals(doc.meta?.title, "sample(1) - frobnicate wombat files \u2014 quickly");
  assertEquals(doc.outlineQuality, "high");
  const alias = renderMan(".so man3/printf.3\n");
  assertEquals(alias.lines, ["       See man3/printf.3."]);
  const mdoc = renderMan(
    ".Dd January 1, 2024\n.Dt FROB 1\n.Os\n.Sh NAME\n.Nm frob\n.Nd frobnicate things\n" +
      ".Sh SYNOPSIS\n.Nm\n.Op Fl v\n.Ar file\n.Sh DESCRIPTION\nSee\n.Xr ls 1 .\n",
  );
  assertEquals(mdoc.title, "frob(1) - frobnicate things");
  assertEquals(mdoc.headings.map((h) => h.title), ["NAME", "SYNOPSIS", "DESCRIPTION"]);
  assertEquals(mdoc.lines, [
    "NAME",
    "       frob - frobnicate things",
    "",
    "SYNOPSIS",
    "       frob [-v] file",
    "",
    "DESCRIPTION",
    "       See ls(1).",
    "",
    "General Commands Manual",
  ]);
});

/** The man pages of Debian's `manpages` package, unpacked from the corpus build's download. */
async function manpagesDeb(): Promise<string> {
  const debs = join(await smallCorpus(), ".cache", "debs");
  const deb = [...Deno.readDirSync(debs)].map((e) => e.name).find((n) =>
    /^manpages_.*\.deb$/.test(n)
  );
  assert(deb, `no manpages_*.deb in ${debs}`);
  const into = await Deno.makeTempDir({ prefix: "shelfmark-man-" });
  const out = await new Deno.Command("dpkg-deb", { args: ["-x", join(debs, deb), into] }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  return join(into, "usr", "share", "man");
}

/** `.SH`/`.SS` titles of a page's source, unescaped the way the corpus's ground truth is. */
function sourceHeadings(src: string): string[] {
  const lines = src.split("\n");
  const out: string[] = [];
  lines.forEach((l, i) => {
    const m = /^\.(SH|SS)(?:\s+(.*))?$/.exec(l);
    if (!m) return;
    const arg = m[2] ?? lines[i + 1] ?? "";
    const t = arg.replace(/\\f(\[[^\]]*\]|\(..|.)/g, "").replace(/\\-/g, "-").replace(/\\&/g, "")
      .replace(/"/g, "").replace(/\s+/g, " ").trim();
    if (t) out.push(t);
  });
  return out;
}

const hasDpkg = await hasCommand("dpkg-deb");

Deno.test({
  name:
    "man pages of the corpus (Linux man-pages .gz sources): outline as the ground truth, no raw escapes",
  ignore: noteMissing(!hasDpkg, "dpkg-deb is missing: the man page sources cannot be unpacked"),
  async fn() {
    const dir = await smallCorpus();
    const truth = await groundTruth(dir);
    const root = await manpagesDeb();
    const reg = new ExtractorRegistry();
    for (const ex of builtinExtractors()) reg.register(ex);
    let n = 0;
    try {
      for (const [path, row] of truth) {
        const m = /^text\/man\/manpages\/(man\d\/.+)\.txt$/.exec(path);
        if (!m) continue;
        const rel = `${m[1]}.gz`;
        const bytes = await Deno.readFile(join(root, rel));
        // through the compressed-file container, as `ls.1.gz` is indexed
        const r = await reg.extract({ path: `man/${rel}`, extension: ".gz", bytes });
        assertEquals(r?.extractor, "man", rel);
        const doc = r!.extracted;
        const found = doc.headings!.map((h) => h.title);
        const f1 = titleF1(found, row.headings!.map((h) => h.title));
        assert(f1 === 1, `${rel}: F1 ${f1}: ${found.join(" | ")}`);
        for (const h of doc.headings!) assertEquals(doc.lines[h.line - 1]!.trim(), h.title, rel);
        assert(!doc.lines.some((l) => /\\f[BIRP(\[]/.test(l)), `${rel}: raw font escape`);
        assert(/^[\w.-]+\(\d\w*\) - ./.test(doc.meta!.title!), `${rel}: title ${doc.meta?.title}`);
        n++;
      }
      assert(n >= 5, `only ${n} man pages with ground truth`);
    } finally {
      await Deno.remove(join(root, "..", "..", ".."), { recursive: true });
    }
  },
});

const hasGroff = await hasCommand("groff");

Deno.test({
  name: "man pages read as groff -Tutf8 renders them: the words of groff's text are in ours",
  ignore: noteMissing(
    !hasDpkg || !hasGroff,
    "groff or dpkg-deb is missing: no rendering to compare with",
  ),
  async fn() {
    const root = await manpagesDeb();
    const words = (text: string) => {
      const m = new Map<string, number>();
      for (const w of text.toLowerCase().match(/[a-z0-9_]{2,}/g) ?? []) {
        m.set(w, (m.get(w) ?? 0) + 1);
      }
      return m;
    };
    const scores: [number, string][] = [];
    try {
      const files: string[] = [];
      for (const sec of ["man1", "man2", "man3", "man5", "man7", "man8"]) {
        const names = [...Deno.readDirSync(join(root, sec))].map((e) => e.name).sort();
        for (let i = 0; i < names.length; i += Math.max(1, Math.floor(names.length / 8))) {
          files.push(join(sec, names[i]!));
        }
      }
      for (const rel of files) {
        const src = gunzipSync(await Deno.readFile(join(root, rel)));
        const text = new TextDecoder().decode(src);
        if (/^\.so /m.test(text) && text.length < 2000) continue; // an alias
        const groff = await new Deno.Command("groff", {
          args: ["-t", "-man", "-Tutf8", "-P-cbou", "-rHY=0"],
          stdin: "piped",
          stdout: "piped",
          stderr: "null",
        }).spawn();
        const w = groff.stdin.getWriter();
        await w.write(src);
        await w.close();
        const want = words(new TextDecoder().decode((await groff.output()).stdout));
        const got = words(renderMan(text).lines.join("\n"));
        let hit = 0, total = 0;
        for (const [word, count] of want) {
          total += count;
          hit += Math.min(count, got.get(word) ?? 0);
        }
        scores.push([hit / total, rel]);
      }
    } finally {
      await Deno.remove(join(root, "..", "..", ".."), { recursive: true });
    }
    scores.sort((a, b) => a[0] - b[0]);
    const mean = scores.reduce((s, [r]) => s + r, 0) / scores.length;
    console.log(
      `man vs groff word recall: mean ${mean.toFixed(3)} over ${scores.length} pages; lowest ` +
        scores.slice(0, 3).map(([r, f]) => `${r.toFixed(3)} ${f}`).join(", "),
    );
    assert(scores.length >= 20, `only ${scores.length} pages`);
    // what groff has and we do not: mostly its page header and footer (name(section) twice)
    assert(mean >= 0.95, `mean recall ${mean}`);
    assert(scores[0]![0] >= 0.85, `lowest recall ${scores[0]![0]} (${scores[0]![1]})`);
  },
});

const LS = "/usr/share/man/man1/ls.1.gz";
const hasLs = await Deno.stat(LS).then(() => true, () => false);

Deno.test({
  name: "ls.1.gz of this machine: the title from .TH and NAME, the outline the .SH/.SS lines",
  ignore: noteMissing(!hasLs, `${LS} is not installed`),
  async fn() {
    const bytes = await Deno.readFile(LS);
    const reg = new ExtractorRegistry();
    for (const ex of builtinExtractors()) reg.register(ex);
    const r = await reg.extract({ path: "man/man1/ls.1.gz", extension: ".gz", bytes });
    assertEquals(r?.extractor, "man");
    const doc = r!.extracted;
    assertEquals(doc.meta?.title, "ls(1) - list directory contents");
    const src = new TextDecoder().decode(gunzipSync(bytes));
    assertEquals(doc.headings!.map((h) => h.title), sourceHeadings(src));
    assert(!doc.lines.some((l) => l.includes("\\")), "an escape was left in the text");
    assert(doc.lines.includes("       -a, --all"), "the -a option's tag");
  },
});
