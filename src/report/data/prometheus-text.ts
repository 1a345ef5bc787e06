import { DECISIONS_HELP, DECISIONS_SERIES, DECISION_LABELS } from '../../core/series.js';
import type { Outcome } from '../../core/decision-event.js';

// The Prometheus text exposition format (version 0.0.4), both ways, for the one series the
// lab shares with `ratelab serve --metrics`: `compare --prom` writes its replay's counts as
// `ratelab_decisions_total{limiter,tier,outcome}`, and `attack`/`audit --metrics-url` read a
// server's. Hand-written rather than a package: the lab needs one counter family, and the
// parsers on npm are either unmaintained or pull in a whole client.

/** One sample of the decisions counter: its labels and value. */
export interface DecisionCount {
  limiter: string;
  tier: string;
  outcome: Outcome | string;
  value: number;
}

/**
 * The decisions counter's family in the text format: HELP, TYPE, then one sample per
 * count in the order given (labels in the order of `DECISION_LABELS`).
 */
export function decisionsText(counts: readonly DecisionCount[]): string {
  const lines = [`# HELP ${DECISIONS_SERIES} ${DECISIONS_HELP}`, `# TYPE ${DECISIONS_SERIES} counter`];
  for (const count of counts) {
    const labels = DECISION_LABELS.map((name) => `${name}="${escapeLabelValue(count[name])}"`).join(',');
    lines.push(`${DECISIONS_SERIES}{${labels}} ${count.value}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A label value escaped as the format asks: backslash, double quote and line feed. */
function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** One sample as read: the series name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The samples of `text`, a Prometheus text exposition. Comments (HELP, TYPE) and blank
 * lines are skipped; an optional timestamp after the value is ignored. Throws an Error
 * naming the line for anything else that is not `name{label="value",...} number`.
 */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseLine(line);
    if (sample === undefined) throw new Error(`line ${i + 1}: not a sample: ${JSON.stringify(line.slice(0, 80))}`);
    samples.push(sample);
  }
  return samples;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

function parseLine(line: string): Sample | undefined {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) return undefined;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1).trimStart();
    while (!rest.startsWith('}')) {
      const label = LABEL_NAME.exec(rest)?.[0];
      if (label === undefined) return undefined;
      rest = rest.slice(label.length).trimStart();
      if (!rest.startsWith('="')) return undefined;
      const read = readQuoted(rest.slice(2));
      if (read === undefined) return undefined;
      labels[label] = read.value;
      rest = read.rest.trimStart();
      if (rest.startsWith(',')) rest = rest.slice(1).trimStart();
      else if (!rest.startsWith('}')) return undefined;
    }
    rest = rest.slice(1);
  }
  const [valueText, timestamp, extra] = rest.trim().split(/\s+/);
  if (valueText === undefined || extra !== undefined) return undefined;
  if (timestamp !== undefined && !/^-?\d+$/.test(timestamp)) return undefined;
  const value = sampleValue(valueText);
  return value === undefined ? undefined : { name, labels, value };
}

/** A label value up to its closing quote, unescaped, and what follows it. */
function readQuoted(text: string): { value: string; rest: string } | undefined {
  let value = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') return { value, rest: text.slice(i + 1) };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = text[++i];
    if (next === 'n') value += '\n';
    else if (next === '\\' || next === '"') value += next;
    else return undefined;
  }
  return undefined;
}

/** A sample's value: a Go float, `+Inf`, `-Inf` or `NaN`. */
function sampleValue(text: string): number | undefined {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}
