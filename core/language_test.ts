import { gunzipSync } from "node:zlib";
import { assert, assertEquals } from "../tests/assert.ts";
import { detectLanguage, proseSample } from "./language.ts";

/** The text of a file of /usr/share/doc, inflated when it ends in `.gz`. */
function docText(path: string): string {
  const bytes = Deno.readFileSync(path);
  return new TextDecoder().decode(path.endsWith(".gz") ? gunzipSync(bytes) : bytes);
}

/** Whether files of /usr/share/doc are on this machine (tests of them are ignored if not). */
function present(...paths: string[]): boolean {
  try {
    return paths.every((p) => Deno.statSync(p).isFile);
  } catch {
    return false;
  }
}

Deno.test("proseSample() keeps sentences and leaves out settings, code, names and addresses", () => {
  const text = [
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
    "Copyright: 1999, Leon Breedt",
    "CFLAGS = -O2 -g",
    "my $key = catfile($dir, 'key.pem');",
    "Luiz Augusto Von Dentz",
    "Nguyễn Thái Ngọc Duy",
    "Mail bug reports to <bugs@example.org> and they will be read by someone.",
  ].join("\n");
  assertEquals(proseSample(text), "Mail bug reports to and they will be read by someone.");
});

Deno.test("detectLanguage() says und for code, configuration and lists of names", () => {
  const perl = "my $conf = catfile($dir, 'req.conf');\nmy $key = catfile($dir, 'key.pem');\n";
  assertEquals(detectLanguage(perl.repeat(20)), "und");
  const names = "Diego E. 'Flameeyes' Pettenò\nJan Alexander Steffens (heftig)\n" +
    "Luiz Augusto Von Dentz\nOle André Vadla Ravnås\nPau Garcia i Quiles\n";
  assertEquals(detectLanguage(names.repeat(10)), "und");
});

const CURL = "/usr/share/doc/curl/copyright";
const DBUS = "/usr/share/doc/dbus/AUTHORS.gz";
const ADDUSER = "/usr/share/doc/adduser/examples/adduser.local.conf";

Deno.test({
  name: "detectLanguage() no longer takes /usr/share/doc licences and config for French",
  ignore: !present(CURL, DBUS, ADDUSER), // packages curl, dbus, adduser
  fn() {
    // These were fr, de and fr: franc read names, paths and settings as prose.
    assertEquals(detectLanguage(docText(CURL).slice(0, 20_000)), "en");
    const dbus = detectLanguage(docText(DBUS).slice(0, 20_000));
    assert(dbus === "en" || dbus === "und", dbus);
    const conf = detectLanguage(docText(ADDUSER).slice(0, 20_000)); // English comments
    assert(conf === "en" || conf === "und", conf);
  },
});

Deno.test("detectLanguage() keeps French and German prose that English scores close to", () => {
  const fr = "Le serveur lit sa configuration au démarrage. Il faut le redémarrer pour que les " +
    "modifications du fichier soient prises en compte par les processus enfants.";
  const de = "Der Server liest seine Konfiguration beim Start. Nach einer Änderung der Datei " +
    "muss er neu gestartet werden, damit die Kindprozesse sie übernehmen.";
  assertEquals(detectLanguage(fr), "fr");
  assertEquals(detectLanguage(de), "de");
});

Deno.test("detectLanguage() still reads Thai, written without spaces between words", () => {
  const th = "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์เช่นเดียวกับภาษาจีน " +
    "และออกเสียงแยกคำต่อคำ ผู้คนในประเทศไทยใช้ภาษานี้ในชีวิตประจำวันและในการศึกษา";
  assertEquals(detectLanguage(th), "th");
});
