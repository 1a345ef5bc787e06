// Every name the docs say an entry point exports, it exports. The docs name exports three
// ways, and each is checked against the entry's module as TypeScript sees it (values and
// types alike):
// - imports in code blocks: `import { a, type B } from 'ratelab/lab'`, `require('ratelab')`;
// - the README's table of entry points: the names in the row of each `ratelab...` entry;
// - sentences saying so: one with "export" in it names an entry (`ratelab/lab`), or the
//   doc's own (DOC_ENTRY); every name in backticks in it must be an export, except those
//   after "except", or in a sentence saying "not exported", which must not be (the
//   internals a doc describes but does not export);
// - a doc saying "every function and class a list item below starts with is exported by
//   name from `ratelab/lab`": each list item starting with `name(...)`, `new Name(...)` or
//   `await name(...)`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, docFiles } from '../scripts/doc-outputs.js';
import { ENTRIES } from '../tsup.config.js';

/** Docs about one entry point: a sentence saying "exported" without naming one means it. */
const DOC_ENTRY: Record<string, string> = {
  'docs/lab-engine.md': 'ratelab/lab',
  'docs/redis.md': 'ratelab/redis',
  'docs/shared.md': 'ratelab/shared',
  'docs/http.md': 'ratelab/http',
  'docs/errors.md': 'ratelab',
};

/**
 * package.json "exports" as entry name -> source module: each export's bundle
 * (`./dist/lib/NAME.js`) built from tsup.config.ts ENTRIES[NAME] (`ratelab/x` is mostly
 * src/x/index.ts; `ratelab/metrics` is src/observability/index.ts).
 */
function entryModules(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { import?: { default?: string } }>;
  };
  const sources: Record<string, string> = ENTRIES;
  const entries = Object.keys(pkg.exports).filter((key) => key !== './package.json');
  return new Map(
    entries.map((key) => {
      const bundle = /\/dist\/lib\/([\w-]+)\.js$/.exec(pkg.exports[key]?.import?.default ?? '')?.[1] ?? '';
      const source = sources[bundle];
      if (source === undefined) throw new Error(`package.json "exports" ${key}: no bundle of tsup.config.ts ENTRIES`);
      return [key === '.' ? 'ratelab' : `ratelab/${key.slice(2)}`, source];
    }),
  );
}

/** Each entry's exported names, values and types, from the TypeScript program of its module. */
function exportedNames(): Map<string, Set<string>> {
  const modules = entryModules();
  const files = [...modules.values()].map((file) => join(REPO_ROOT, file));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, Set<string>>();
  for (const [entry, file] of modules) {
    const source = program.getSourceFile(join(REPO_ROOT, file));
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${file}: not a module TypeScript can read`);
    names.set(entry, new Set(checker.getExportsOfModule(symbol).map((s) => s.name)));
  }
  return names;
}

/** A name a doc says an entry exports (or, `exported: false`, says it does not). */
interface Claim {
  doc: string;
  line: number;
  entry: string;
  name: string;
  exported: boolean;
}

const IMPORT = /import\s*\{([^}]*)\}\s*from\s*'(ratelab(?:\/[\w-]+)?)'/g;
const REQUIRE = /const\s*\{([^}]*)\}\s*=\s*require\('(ratelab(?:\/[\w-]+)?)'\)/g;
const ENTRY_SPAN = /^ratelab(\/[\w-]+)?$/;
/** A code span naming an identifier, perhaps as a call or a construction: `x`, `x(a, b)`, `new X(...)`. */
const NAME_SPAN = /^(?:new\s+)?([A-Za-z_$][\w$]*)(?:\(.*\))?$/;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** Names imported or required from an entry in the doc's code blocks. */
function importClaims(doc: string, text: string): Claim[] {
  const claims: Claim[] = [];
  for (const pattern of [IMPORT, REQUIRE]) {
    for (const match of text.matchAll(pattern)) {
      const names = (match[1] as string).split(',').map(
        (part) =>
          part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+|\s*:\s*/)[0] as string,
      );
      for (const name of names.filter((n) => n !== ''))
        claims.push({ doc, line: lineOf(text, match.index), entry: match[2] as string, name, exported: true });
    }
  }
  return claims;
}

/** Names in backticks in a stretch of prose, as identifiers (not entries, paths or code). */
function spanNames(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)]
    .map((m) => m[1] as string)
    .filter((span) => !ENTRY_SPAN.test(span))
    .flatMap((span) => {
      const name = NAME_SPAN.exec(span);
      return name ? [name[1] as string] : [];
    });
}

/** The README's table of entry points: each `ratelab...` row's names. */
function tableClaims(doc: string, text: string): Claim[] {
  const claims: Claim[] = [];
  for (const match of text.matchAll(/^\| `(ratelab(?:\/[\w-]+)?)` \| ([^|]*) \|/gm)) {
    for (const name of spanNames(match[2] as string))
      claims.push({ doc, line: lineOf(text, match.index), entry: match[1] as string, name, exported: true });
  }
  return claims;
}

/** Prose outside code blocks, as sentences with their first line. */
function sentences(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  const paragraphs = text
    .split(/^```[\s\S]*?^```$/m)
    .join('\n\n')
    .split(/\n\s*\n/);
  let from = 0;
  for (const paragraph of paragraphs) {
    const at = text.indexOf(paragraph.trim().split('\n')[0] ?? '', from);
    if (at >= 0) from = at;
    for (const sentence of paragraph.replace(/\s+/g, ' ').split(/(?<=[.:;])\s+(?=[A-Z`(])/))
      found.push({ line: lineOf(text, Math.max(at, 0)), text: sentence });
  }
  return found;
}

/** Sentences saying what is (or is not) exported. */
function sentenceClaims(doc: string, text: string): Claim[] {
  const claims: Claim[] = [];
  for (const sentence of sentences(text)) {
    if (!/\bexport(s|ed)\b/.test(sentence.text) || /default export|named export|exports no\b/.test(sentence.text))
      continue;
    const named = [...sentence.text.matchAll(/`(ratelab(?:\/[\w-]+)?)`/g)].map((m) => m[1] as string);
    const entry = named[0] ?? DOC_ENTRY[doc];
    if (entry === undefined) continue;
    const [claimed = '', ...rest] = /\bnot exported\b/.test(sentence.text)
      ? ['', sentence.text]
      : sentence.text.split(/\bexcept\b/);
    for (const name of spanNames(claimed)) claims.push({ doc, line: sentence.line, entry, name, exported: true });
    for (const name of spanNames(rest.join(' ')))
      claims.push({ doc, line: sentence.line, entry, name, exported: false });
  }
  return claims;
}

/** The list items of a doc that says each one starting with a call names an export of an entry. */
function listClaims(doc: string, text: string): Claim[] {
  const entry = /list item below starts with is exported by name from `(ratelab(?:\/[\w-]+)?)`/.exec(
    text.replace(/\s+/g, ' '),
  )?.[1];
  if (entry === undefined) return [];
  return [...text.matchAll(/^- `(?:new |await )?([A-Za-z_$][\w$]*)\(/gm)].map((m) => ({
    doc,
    line: lineOf(text, m.index),
    entry,
    name: m[1] as string,
    exported: true,
  }));
}

describe('every export a doc names exists', () => {
  const exports = exportedNames();
  const claims = docFiles().flatMap((doc) => {
    const text = readFileSync(join(REPO_ROOT, doc), 'utf8');
    return [
      ...importClaims(doc, text),
      ...tableClaims(doc, text),
      ...sentenceClaims(doc, text),
      ...listClaims(doc, text),
    ];
  });

  it('finds the claims (imports, the entry table, sentences) in README.md and docs/', () => {
    const names = (doc: string) =>
      claims.filter((c) => c.doc === doc).map((c) => `${c.exported ? '' : '!'}${c.entry}:${c.name}`);
    expect(names('README.md')).toEqual(
      expect.arrayContaining(['ratelab:createLimiter', 'ratelab/lab:replay', 'ratelab/shared:serveClusterLimiter']),
    );
    expect(names('docs/lab-engine.md')).toEqual(
      expect.arrayContaining([
        'ratelab/lab:parseScenario',
        'ratelab/lab:compareWorkloads',
        'ratelab/lab:jainIndex',
        '!ratelab/lab:WindowLedger',
      ]),
    );
    expect(names('docs/redis.md')).toContain('ratelab/redis:hashSlot');
  });

  it('each name an entry is said to export is one of its exports, and each internal is not', () => {
    const wrong = claims.filter((c) => exports.get(c.entry)?.has(c.name) !== c.exported);
    const unknown = claims.filter((c) => !exports.has(c.entry));
    expect(unknown.map((c) => `${c.doc}:${c.line}: no entry point ${c.entry}`)).toEqual([]);
    expect(
      wrong.map((c) => `${c.doc}:${c.line}: ${c.entry} ${c.exported ? 'does not export' : 'exports'} ${c.name}`),
    ).toEqual([]);
  });
});
