// A journey's sequence diagram as static SVG, drawn at build time: one lifeline per party, one
// arrow per message, top to bottom. No script, no font or image from anywhere: text and lines only,
// in `currentColor`, so the page's light or dark colours apply.
import { escapeHtml } from "./html.js";

/** One arrow: from a lane to a lane, a label, and an optional second line under it. */
export interface SequenceMessage {
  from: number;
  to: number;
  label: string;
  note?: string;
  /** An answer: drawn dashed. */
  reply?: boolean;
  /** Where the arrow links (the operation or the event in the reference). */
  href?: string;
}

const LANE_GAP = 380;
const MARGIN = 90;
const TOP = 56;
const ROW = 46;
/** Characters a label keeps: a longer one is cut with an ellipsis (the table below the diagram has it whole). */
const MAX_LABEL = 58;

const cut = (text: string): string => (text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text);

/** One message as SVG: the line, its head, its label. */
function arrow(message: SequenceMessage, y: number): string {
  const x1 = MARGIN + message.from * LANE_GAP;
  const x2 = MARGIN + message.to * LANE_GAP;
  const left = Math.min(x1, x2);
  const dash = message.reply ? ' stroke-dasharray="6 4"' : "";
  const head = x2 > x1 ? x2 - 9 : x2 + 9;
  const text =
    `<text x="${left + 8}" y="${y - 6}" font-size="12">${escapeHtml(cut(message.label))}</text>` +
    (message.note
      ? `<text x="${left + 8}" y="${y + 14}" font-size="10.5" opacity="0.75">${escapeHtml(cut(message.note))}</text>`
      : "");
  const body =
    `<line x1="${x1}" y1="${y}" x2="${x2}" y2="${y}" stroke="currentColor" stroke-width="1.3"${dash}/>` +
    `<polygon points="${x2},${y} ${head},${y - 4.5} ${head},${y + 4.5}" fill="currentColor"/>` +
    text;
  return message.href ? `<a href="${escapeHtml(message.href)}">${body}</a>` : body;
}

/** The diagram: lanes named `lanes`, the messages in order, labelled for screen readers by `label`. */
export function renderSequence(lanes: string[], messages: SequenceMessage[], label: string): string {
  const width = MARGIN * 2 + (lanes.length - 1) * LANE_GAP;
  const height = TOP + messages.length * ROW + 30;
  const lifelines = lanes
    .map((name, i) => {
      const x = MARGIN + i * LANE_GAP;
      return (
        `<rect x="${x - 70}" y="8" width="140" height="28" rx="5" fill="none" stroke="currentColor"/>` +
        `<text x="${x}" y="27" font-size="13" font-weight="600" text-anchor="middle">${escapeHtml(name)}</text>` +
        `<line x1="${x}" y1="36" x2="${x}" y2="${height - 8}" stroke="currentColor" stroke-width="0.8" opacity="0.45"/>`
      );
    })
    .join("");
  const arrows = messages.map((m, i) => arrow(m, TOP + 12 + i * ROW)).join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="sequence" role="img" aria-label="${escapeHtml(label)}" ` +
    `viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" fill="currentColor" ` +
    `font-family="Helvetica, Arial, sans-serif">${lifelines}${arrows}</svg>`
  );
}
