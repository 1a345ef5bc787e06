import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { RatelabError } from '../errors.js';
import type { Algorithm, Policy } from '../policy.js';
import { tiersError, validateTiers, type SchemaProblem } from './schema.js';

/** A tier: a limiter to build, or `unlimited` (always admits). */
export type TierSpec = 'unlimited' | { algorithm: Algorithm; policy: Policy };

/** A validated tiers file. */
export interface TiersConfig {
  /** Tier name -> tier. */
  tiers: Record<string, TierSpec>;
  /** Client id -> tier name. */
  clients: Record<string, string>;
  /** The tier of every client not listed in `clients`. */
  default: string;
}

/**
 * Reads and validates a tiers file (YAML, or JSON, which YAML includes). Throws
 * `FILE_NOT_FOUND` / `FILE_UNREADABLE`, or `INVALID_TIERS` whose `problems` list every
 * problem as `file:line: tiers.free.limit: expected a positive integer up to ..., got -3`.
 */
export function loadTiers(path: string): TiersConfig {
  return parseTiers(readText(path), path);
}

/** Validates the text of a tiers file; `source` names it in messages. */
export function parseTiers(text: string, source = 'tiers'): TiersConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw tiersError(source, doc.errors.map((error) => `${source}:${lines.linePos(error.pos[0]).line}: ${firstLine(error.message)}`));
  }
  const checked = validateTiers(doc.toJS());
  if (!checked.ok) throw tiersError(source, checked.problems.map((problem) => locate(problem, doc, lines, source)));
  const tiers: Record<string, TierSpec> = {};
  for (const [name, tier] of Object.entries(checked.value.tiers)) {
    tiers[name] = tier === 'unlimited' ? 'unlimited' : { algorithm: tier.algorithm as Algorithm, policy: toPolicy(tier) };
  }
  return { tiers, clients: checked.value.clients, default: checked.value.default };
}

function toPolicy(tier: { limit: number; window: number; burst?: number | undefined }): Policy {
  return tier.burst === undefined ? { limit: tier.limit, windowMs: tier.window } : { limit: tier.limit, windowMs: tier.window, burst: tier.burst };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RatelabError('FILE_NOT_FOUND', `${path}: no such file`, { field: path });
    throw new RatelabError('FILE_UNREADABLE', `${path}: cannot be read (${code ?? String(error)})`, { field: path, cause: error });
  }
}

/** `file:line: a.b.c: message`, with the line of the deepest node of the path that exists. */
function locate(problem: SchemaProblem, doc: Document, lines: LineCounter, source: string): string {
  const where = problem.path.length > 0 ? `${problem.path.join('.')}: ` : '';
  for (let depth = problem.path.length; depth >= 0; depth--) {
    const node = doc.getIn(problem.path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return `${source}:${lines.linePos(node.range[0]).line}: ${where}${problem.message}`;
  }
  return `${source}: ${where}${problem.message}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
