/**
 * Assertions for the tests, on `node:assert` (JSR's `@std/assert` is unreachable here).
 *
 * @module
 */
import nodeAssert from "node:assert/strict";

/** Assert that a value is truthy. */
export function assert(value: unknown, message?: string): asserts value {
  nodeAssert.ok(value, message);
}

/** Assert deep equality. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

/** Assert that a string matches a pattern. */
export function assertMatch(actual: string, re: RegExp, message?: string): void {
  nodeAssert.match(actual, re, message);
}

/** Assert that a promise rejects, returning the error. */
export async function assertRejects(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  throw new nodeAssert.AssertionError({ message: "expected the promise to reject" });
}
