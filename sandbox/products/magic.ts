// Magic values: words a caller puts in fields it controls to choose what the sandbox does. The table
// in docs/sandbox.md is this file in prose; a test keeps the two in step.

/** The journeys a biometric verification can be told to take by itself. */
export type Journey = "pass" | "review" | "fail" | "pending" | "pending-error" | "error";

/** Magic words and what they choose, longest first so that no word hides a longer one. */
export const BIOMETRIC_MAGIC: readonly (readonly [word: string, journey: Journey])[] = [
  ["sandbox-pending-error", "pending-error"],
  ["sandbox-pending", "pending"],
  ["sandbox-review", "review"],
  ["sandbox-error", "error"],
  ["sandbox-pass", "pass"],
  ["sandbox-fail", "fail"],
];

/** The word in a value: the whole value, or its end after a space, `-` or `_` (case-insensitive). */
function wordIn(value: unknown, words: readonly string[]): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.toLowerCase();
  return words.find(
    (word) =>
      text === word || (text.endsWith(word) && /[ _-]/.test(text[text.length - word.length - 1] ?? "")),
  );
}

/** The journey a biometric request asks for: by its lastname, else by its reference; undefined for none. */
export function biometricJourney(request: { lastname?: unknown; reference?: unknown }): Journey | undefined {
  const words = BIOMETRIC_MAGIC.map(([word]) => word);
  const word = wordIn(request.lastname, words) ?? wordIn(request.reference, words);
  return BIOMETRIC_MAGIC.find(([w]) => w === word)?.[1];
}

/** The outcome a manual verification or PEP check is told to have: `fail`, `pep` or none (a pass). */
export function screeningOutcome(request: {
  last_name?: unknown;
  lastname?: unknown;
  reference?: unknown;
}): "fail" | "pep" | undefined {
  const words = ["sandbox-fail", "sandbox-pep"];
  const word =
    wordIn(request.last_name, words) ?? wordIn(request.lastname, words) ?? wordIn(request.reference, words);
  return word === "sandbox-fail" ? "fail" : word === "sandbox-pep" ? "pep" : undefined;
}

/** A contact phone the SMS gateway refuses: one ending in 0000000 (answered 400 SMS_FAIL). */
export const smsFails = (phone: unknown): boolean => typeof phone === "string" && phone.endsWith("0000000");

/** A title number whose title search comes as a zip (document and plan) rather than a PDF. */
export const zipTitle = (titleNumber: unknown): boolean =>
  typeof titleNumber === "string" && titleNumber.toUpperCase().startsWith("ZIP");
