// Every report format carries the same verdicts: one corpus (the bench's, labelled by construction,
// and a HAR of broken examples) through text, json, junit, sarif and github gives the same findings
// (file, entry or line, level, check, location and message) and the same totals.
import { rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildIndependentCorpus } from "../../bench/corpus-independent.js";
import { escapeData } from "../../conformance/findings/github.js";
import { loadOpenApi } from "../support/contract.js";
import { tempDir } from "./support/cli.js";
import { example } from "./support/exchanges.js";
import { runMain, toHar, toHarEntry } from "./support/in-process.js";
import type { Json } from "../../src/contract/json.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A finding as every format must tell it. */
const key = (
  file: string,
  where: string,
  level: string,
  check: string,
  part: string,
  pointer: string,
  message: string,
) => [file, where, level, check, part, pointer || "/", message].join(" | ");

const unxml = (s: string) =>
  s.replace(
    /&(lt|gt|amp|quot|apos);/g,
    (_, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[e]!,
  );

/** Where an entry is, as the text and JUnit reports name it: its file, then `line N` or `entry N`. */
const WHERE = /^(.*?) ((?:line|entry) \d+)(?: |$)/;
/** A finding line of the text and JUnit reports: the part, the pointer, then the rest. */
const PART = /^(entry|request\.\w+|response\.\w+|delivery\.\w+) (\S+)/;

const parsers: Record<string, (out: string) => string[]> = {
  json(out) {
    return JSON.parse(out).entries.flatMap((e: Json) => {
      const where = e.line === undefined ? `entry ${e.index}` : `line ${e.line}`;
      const f = (level: string) => (x: Json) =>
        key(e.file, where, level, x.check, x.in, x.pointer, x.message);
      return [...e.violations.map(f("error")), ...e.warnings.map(f("warning"))];
    });
  },
  text(out) {
    expect(out).not.toMatch(/… and \d+ more/);
    const found: string[] = [];
    let check = "";
    let level = "";
    for (const line of out.split("\n")) {
      const head = /^ {2}([✗!]) (\w+) \(/.exec(line);
      if (head) [check, level] = [head[2]!, head[1] === "✗" ? "error" : "warning"];
      if (!line.startsWith("      ")) continue;
      const m = /^ {6}(.*?): (\S+ \S+): (.*)$/.exec(line)!;
      const [, file, where] = WHERE.exec(m[1]!)!;
      const [, part, pointer] = PART.exec(m[2]!)!;
      found.push(key(file!, where!, level, check, part!, pointer!, m[3]!));
    }
    return found;
  },
  junit(out) {
    const found: string[] = [];
    for (const [, name, body] of out.matchAll(/<testcase [^>]*name="([^"]*)">\n([\s\S]*?)<\/testcase>/g)) {
      const [, file, where] = WHERE.exec(unxml(name!))!;
      const lines = (re: RegExp, level: string) => {
        const text = re.exec(body!)?.[1];
        for (const l of text ? unxml(text).split("\n") : []) {
          const m = /^(?:warning: )?(\S+ \S+) \[(\w+)\]: (.*)$/.exec(l)!;
          const [, part, pointer] = PART.exec(m[1]!)!;
          found.push(key(file!, where!, level, m[2]!, part!, pointer!, m[3]!));
        }
      };
      lines(/<failure [^>]*>([\s\S]*?)<\/failure>/, "error");
      lines(/<system-out>([\s\S]*?)<\/system-out>/, "warning");
    }
    return found;
  },
  sarif(out) {
    return JSON.parse(out).runs[0].results.map((r: Json) => {
      // The exchange: the result's place, or (on the contract's source line) a related location.
      const location = [r.locations[0], ...(r.relatedLocations ?? [])].find(
        (l: Json) => l.logicalLocations?.[0]?.kind === "element",
      );
      const file = decodeURIComponent(location.physicalLocation.artifactLocation.uri);
      const where = location.logicalLocations[0].name;
      const message = r.message.text.slice(
        r.message.text.indexOf(": ", r.message.text.indexOf(r.properties.part)) + 2,
      );
      return key(file, where, r.level, r.ruleId, r.properties.part, r.properties.pointer, message);
    });
  },
  github(out) {
    const lines = out.trimEnd().split("\n");
    expect(lines.pop()).toMatch(/^idv-conformance check: \d+ checked/);
    return lines.map((line) => {
      const m = /^::(error|warning) file=([^,]*)(?:,line=\d+)?,title=[^:]*\((\w+)\)::(.*)$/.exec(line)!;
      const message = decodeURIComponent(m[4]!);
      const [, , where] = WHERE.exec(`x ${message}`)!;
      const part = / ((?:entry|request\.\w+|response\.\w+|delivery\.\w+) \S+): (.*)$/.exec(message)!;
      const [, p, pointer] = PART.exec(part[1]!)!;
      return key(decodeURIComponent(m[2]!), where!, m[1]!, m[3]!, p!, pointer!, part[2]!);
    });
  },
};

/** The totals a format states. */
const totals: Record<string, (out: string) => string> = {
  json: (out) => ((s) => `${s.entries} ${s.passed} ${s.failed}`)(JSON.parse(out).summary),
  text: (out) =>
    out
      .match(/(\d+) checked: (\d+) passed, (\d+) failed/)!
      .slice(1)
      .join(" "),
  junit: (out) =>
    ((m) => `${m[1]} ${Number(m[1]) - Number(m[2])} ${m[2]}`)(/tests="(\d+)" failures="(\d+)"/.exec(out)!),
  sarif: (out) => ((s) => `${s.entries} ${s.passed} ${s.failed}`)(JSON.parse(out).runs[0].properties.summary),
  github: (out) =>
    out
      .match(/(\d+) checked: (\d+) passed, (\d+) failed/)!
      .slice(1)
      .join(" "),
};

describe("every format carries the same verdicts", () => {
  const ndjson = join(dir, "bench corpus.ndjson");
  writeFileSync(
    ndjson,
    `${buildIndependentCorpus(loadOpenApi(), 40, 7)
      .entries.map((e) => e.line)
      .join("\n")}\n`,
  );
  const broken = [example("getEddCase"), example("createPepCheck"), example("getEddCase")];
  broken[0]!.request.path = "/api/v4/nowhere";
  broken[1]!.request.headers["content-type"] = "text/plain";
  if (broken[2]!.response) broken[2]!.response.status = 418;
  // A member the contract does not describe: a warning.
  const extra = example("createPepCheck");
  if (extra.response?.body?.kind === "text")
    extra.response.body.text = JSON.stringify({ ...JSON.parse(extra.response.body.text), undescribed: 1 });
  broken.push(extra);
  const har = join(dir, "broken, examples.har");
  writeFileSync(har, toHar(broken.map(toHarEntry)));
  const files = [relative(process.cwd(), ndjson), relative(process.cwd(), har)];

  it("text, json, junit, sarif and github name the same findings and totals", async () => {
    const reports = new Map<string, { findings: string[]; totals: string }>();
    for (const format of Object.keys(parsers)) {
      const run = await runMain(["check", ...files, "--format", format]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(1);
      reports.set(format, {
        findings: parsers[format]!(run.stdout).sort(),
        totals: totals[format]!(run.stdout),
      });
    }
    const json = reports.get("json")!;
    expect(json.findings.length).toBeGreaterThan(10);
    // Both files, and both a line and an entry, are among them.
    expect(json.findings.some((f) => f.includes("| line "))).toBe(true);
    expect(json.findings.some((f) => f.includes("| entry 2 |"))).toBe(true);
    expect(json.findings.some((f) => f.includes("| warning |"))).toBe(true);
    for (const [format, report] of reports) {
      expect(report.findings, format).toEqual(json.findings);
      expect(report.totals, format).toBe(json.totals);
    }
  });

  it("a message with the characters workflow commands escape still reads back", () => {
    expect(decodeURIComponent(escapeData("100% of 3\r\n"))).toBe("100% of 3\r\n");
  });
});
