// One seeded pseudo-random sequence, for the probe's choices and the benchmarks' corpora alike
// (bench/seeded-random.ts re-exports it): a seed always makes the same choices. It imports nothing,
// so that a corpus made without the suite's checks can share it.

/** A deterministic pseudo-random sequence in [0, 1) for a seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
