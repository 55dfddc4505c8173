// What a gateway log does not record is said once a run, on the main thread's stderr, whatever thread read it.
import { describeNotice, type UnrecordedNotice } from "../traffic/gateway-logs.js";

/**
 * What a gateway log does not record, on stderr once a run for each part (--jobs posts them to the
 * main thread): a notice, never a finding, so neither the report nor --warnings-as-errors counts it.
 */
export function stderrNotices(write = (line: string) => process.stderr.write(line)) {
  const said = new Set<string>();
  return (notice: UnrecordedNotice): void => {
    if (said.has(notice.part)) return;
    said.add(notice.part);
    write(`idv-conformance: note: ${describeNotice(notice)}\n`);
  };
}
