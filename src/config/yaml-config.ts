import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { RatelabErrorCode } from '../core/errors.js';
import { fileReadError } from './file-read-error.js';
import { problemsError, type SchemaProblem } from './schema-problems.js';

/**
 * Reads a UTF-8 text file. Throws `FILE_NOT_FOUND` or `FILE_UNREADABLE` naming `path`.
 */
export function readText(path: string, label = path): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw fileReadError(error, label);
  }
}

/**
 * Parses a YAML (or JSON) document and validates it, reporting problems where they are
 * in the file. `validate` checks the parsed data and returns the typed value or its
 * problems (paths of keys); each problem becomes `source:line: a.b[0].c: message`, with the
 * line of the deepest node of the path that exists. Throws `code` listing every problem
 * (YAML syntax errors included), so one run shows everything to fix.
 */
export function parseYamlConfig<T>(
  text: string,
  source: string,
  code: RatelabErrorCode,
  validate: (data: unknown) => { ok: true; value: T } | { ok: false; problems: SchemaProblem[] },
): T {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw problemsError(
      code,
      source,
      doc.errors.map((error) => `${source}:${error.linePos?.[0].line ?? 1}: ${yamlReason(error.message)}`),
    );
  }
  const checked = validate(toData(doc, source, code));
  if (!checked.ok) {
    // In file order, as an editor shows them (the schema finds them in its own order).
    const located = checked.problems
      .map((problem) => locate(problem, doc, lines, source))
      .sort((a, b) => a.line - b.line);
    throw problemsError(
      code,
      source,
      located.map((problem) => problem.text),
    );
  }
  return checked.value;
}

/**
 * How many nodes aliases may expand to, counted by the yaml package; a real scenario or
 * tiers file uses a handful, while a "billion laughs" file expands to more than memory holds.
 */
const MAX_ALIAS_COUNT = 100;

/** The document as plain data; a file whose aliases expand too far is refused naming it. */
function toData(doc: Document, source: string, code: RatelabErrorCode): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (!(error instanceof ReferenceError) || !/alias/i.test(error.message)) throw error;
    throw problemsError(code, source, [
      `${source}: its aliases expand too far (the yaml limit is ${MAX_ALIAS_COUNT}, against "billion laughs" files): write the values out`,
    ]);
  }
}

/** A problem as `source:line: a.b[0].c: message`, with its line (0 when it has none) for sorting. */
function locate(
  problem: SchemaProblem,
  doc: Document,
  lines: LineCounter,
  source: string,
): { line: number; text: string } {
  const where = problem.path.length > 0 ? `${fieldPath(problem.path)}: ` : '';
  for (let depth = problem.path.length; depth >= 0; depth--) {
    const node = doc.getIn(problem.path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const line = lines.linePos(node.range[0]).line;
      return { line, text: `${source}:${line}: ${where}${problem.message}` };
    }
  }
  return { line: 0, text: `${source}: ${where}${problem.message}` };
}

/** A path of keys as it reads in the file: `sources[0].rate`, `tiers.free.limit`. */
function fieldPath(path: readonly (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/** yaml's message without its own position suffix and code excerpt (we give the line). */
function yamlReason(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
