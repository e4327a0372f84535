/**
 * Git repositories for tests: a local bare repository as the remote and two clones of it,
 * each with its own user in its local config (the global config is never read or written).
 *
 * @module
 */
import { join } from "node:path";
import { git } from "../shelf/git.ts";

/** A bare remote and two clones of it (`a`, `b`), each with a local user and one commit. */
export async function repos(): Promise<{ dir: string; a: string; b: string; remote: string }> {
  const dir = await Deno.makeTempDir({ prefix: "shelfmark-git-" });
  const remote = join(dir, "remote.git");
  await git(dir, ["init", "--quiet", "--bare", "-b", "main", remote]);
  const a = join(dir, "a");
  const b = join(dir, "b");
  for (const [clone, who] of [[a, "Ann"], [b, "Bob"]] as const) {
    await git(dir, ["clone", "--quiet", remote, clone]);
    await git(clone, ["config", "user.name", who]);
    await git(clone, ["config", "user.email", `${who.toLowerCase()}@example.org`]);
    if (clone === a) {
      await Deno.mkdir(join(a, "notes"));
      await Deno.writeTextFile(join(a, "notes/a.md"), "# A\n\none\ntwo\nthree\n");
      await git(a, ["add", "."]);
      await git(a, ["commit", "--quiet", "-m", "first"]);
      await git(a, ["push", "--quiet", "-u", "origin", "main"]);
    } else {
      await git(b, ["pull", "--quiet", "origin", "main"]);
      await git(b, ["branch", "--quiet", "--set-upstream-to=origin/main"]);
    }
  }
  return { dir, a, b, remote };
}
