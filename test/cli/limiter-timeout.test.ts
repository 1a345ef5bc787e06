import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';

// Issue 11 item 6: a --limiter module that never settles made the run exit 13 (Node's
// "unsettled top-level await") with no word. Each call into the module is bounded.
const BIN = fileURLToPath(new URL('../../bin/ratelab.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'ratelab-limiter-timeout-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes `source` as a fresh module in the scratch folder; returns its file name. */
function module(source: string): string {
  const name = `hang-${Math.random().toString(36).slice(2)}.mjs`;
  writeFileSync(join(scratch, name), `${source}\n`);
  return name;
}

// Loading and the factory get at least 5 s (an import on a busy machine can take more than 100 ms).
const HANGS = [
  {
    source: 'export default () => ({ consume: () => new Promise(() => {}) });',
    call: /consume\("[^"]*", 1\) at \S+ \(virtual time\) did not settle within 100ms/,
  },
  {
    source: 'export default async () => ({ consume: async (key) => key === "" ? true : new Promise(() => {}) });',
    call: /consume\("[^"]*", 1\) at \S+ \(virtual time\) did not settle within 100ms/,
  },
  {
    source: 'await new Promise(() => {});\nexport default () => ({ consume: () => true });',
    call: /loading it \(its top-level await\) did not settle within 5s/,
  },
  { source: 'export default () => new Promise(() => {});', call: /its factory's promise did not settle within 5s/ },
];

describe('a --limiter module that never settles: exit 2, one line naming the module and the hang', () => {
  it.concurrent.each(HANGS)(
    '$source',
    async ({ source, call }) => {
      const name = module(source);
      const io = bufferIO({ cwd: scratch });
      expect(
        await run(['compare', 'steady-under', '--no-measure', '--limiter', name, '--limiter-timeout', '100ms'], io),
      ).toBe(2);
      const lines = io.err().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(
          `^ratelab: ${name.replace('.', '\\.')}: ${call.source}: the module hangs \\(bound: --limiter-timeout\\)$`,
        ),
      );
      expect(io.out()).toBe('');
    },
    20_000,
  );

  it('as a process: exit 2 with the one line, not exit 13 with none', async () => {
    const name = module(HANGS[0]!.source);
    const child = spawn(
      process.execPath,
      [BIN, 'compare', 'steady-under', '--no-measure', '--limiter', name, '--limiter-timeout', '100ms'],
      { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^ratelab: ${name.replace('.', '\\.')}: consume\\("[^"]*", 1\\) at \\S+ \\(virtual time\\) did not settle within 100ms: the module hangs \\(bound: --limiter-timeout\\)\\n$`,
      ),
    );
  }, 20_000);

  it.each([
    [['--limiter-timeout', 'soon'], /^ratelab: --limiter-timeout: expected a duration/],
    [['--limiter-timeout', '30d'], /^ratelab: --limiter-timeout: expected at most 24d, got "30d"\n$/],
  ])('refuses %j (exit 2)', async (flags, message) => {
    const io = bufferIO({ cwd: scratch });
    expect(
      await run(
        [
          'compare',
          'steady-under',
          '--no-measure',
          '--limiter',
          module('export default () => ({ consume: () => true });'),
          ...flags,
        ],
        io,
      ),
    ).toBe(2);
    expect(io.err()).toMatch(message);
  });
});
