// autocannon ships no type declarations; the benchmarks use its documented options and result
// fields, so it is typed loosely here rather than adding a types package for bench code.
declare module "autocannon" {
  const autocannon: (options: Record<string, unknown>) => Promise<any>;
  export default autocannon;
}
