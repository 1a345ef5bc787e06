import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { loadScenario } from '../../src/scenario/load-scenario.js';
import { loadTiers } from '../../src/tiers/load-tiers.js';
import { expectRatelabError } from '../support/errors.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-yaml-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Billion laughs: each level is a list of ten aliases of the one before, so nine levels expand to 10^9 strings. */
function yamlBomb(topKey: string): string {
  const lines = ['a0: &a0 "lol"'];
  for (let level = 1; level <= 9; level++) {
    lines.push(`a${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ')}]`);
  }
  lines.push(`${topKey}: *a9`);
  return `${lines.join('\n')}\n`;
}

const LOADERS: [string, (path: string) => unknown, 'INVALID_SCENARIO' | 'INVALID_TIERS', string[]][] = [
  ['scenario', loadScenario, 'INVALID_SCENARIO', ['compare', '--no-measure']],
  ['tiers', loadTiers, 'INVALID_TIERS', ['check-tiers']],
];

describe('YAML bombs', () => {
  for (const [name, load, code, argv] of LOADERS) {
    it(`a ${name} file of aliases upon aliases is refused with ${code} naming the file`, () => {
      const path = join(scratch, `bomb-${name}.yaml`);
      writeFileSync(path, yamlBomb('name'));
      const error = expectRatelabError(() => load(path), code);
      expect(error.message).toContain(path);
      expect(error.message).toMatch(/aliases/);
    });

    it(`ratelab ${argv[0]} exits 2 naming the ${name} file`, async () => {
      writeFileSync(join(scratch, `cli-bomb-${name}.yaml`), yamlBomb('name'));
      const io = bufferIO({ cwd: scratch });
      expect(await run([...argv, `cli-bomb-${name}.yaml`], io)).toBe(2);
      expect(io.err()).toContain(`cli-bomb-${name}.yaml`);
    });
  }
});
