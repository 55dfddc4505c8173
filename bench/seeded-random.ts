// The one seeded pseudo-random sequence, kept in conformance/ (which may not import bench/, while
// bench/ may import anything), so that the probe and the benchmarks' corpora share one copy.
export { seededRandom } from "../conformance/probe/seeded-random.js";
