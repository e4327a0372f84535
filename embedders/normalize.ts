/**
 * Vector helpers shared by the embedders.
 *
 * @module
 */

/** Scale a vector to unit length in place (a zero vector is left as it is); returns it. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const len = Math.sqrt(sum);
  if (len > 0) { for (let i = 0; i < v.length; i++) v[i] = v[i]! / len; }
  return v;
}

/** Cosine similarity of two unit vectors (their dot product). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
