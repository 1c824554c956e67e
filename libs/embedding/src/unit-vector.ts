/**
 * Scales a vector to length 1 in place and returns it. Cosine similarity then is a dot product,
 * and pgvector's inner-product and cosine operators rank alike. A zero vector has no direction
 * and is refused rather than passed on as NaNs.
 */
export function toUnitVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!(norm > 0) || !Number.isFinite(norm)) throw new Error('cannot normalise a zero or non-finite vector');
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}
