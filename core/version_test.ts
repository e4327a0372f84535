import { assertEquals } from "../tests/assert.ts";
import { VERSION } from "./version.ts";

Deno.test("VERSION matches deno.json's version", async () => {
  const json = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assertEquals(VERSION, json.version);
});
