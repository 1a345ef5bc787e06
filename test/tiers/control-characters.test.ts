import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { describeValue, escapeControl } from '../../src/core/errors.js';
import { bufferIO } from '../../src/report/io.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-control-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Any C0 control, DEL or C1 control (CSI, OSC...) left raw in terminal output. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

const INJECTED_TIER =
  'tiers:\n  "free\\r\\nSet-Cookie: a=b":\n    algorithm: token-bucket\n    limit: 10\n    window: 1s\ndefault: "free\\r\\nSet-Cookie: a=b"\n';

describe('control characters from files', () => {
  const cases: [string, string, string, string[]][] = [
    ['check-tiers refuses a tier name with CR LF', 'crlf.yaml', INJECTED_TIER, ['check-tiers', 'crlf.yaml']],
    [
      'check-tiers refuses a tier name with C1 CSI',
      'csi.yaml',
      INJECTED_TIER.replaceAll('\\r\\nSet-Cookie: a=b', '\\x9b31m'),
      ['check-tiers', 'csi.yaml'],
    ],
    [
      'serve refuses the same file naming it',
      'serve.yaml',
      INJECTED_TIER,
      ['serve', '--tiers', 'serve.yaml', '--port', '0'],
    ],
    [
      'a YAML syntax error does not echo ESC and OSC',
      'osc.yaml',
      'tiers: [\u001b]0;owned\u0007\u001b[31m\ndefault: x\n',
      ['check-tiers', 'osc.yaml'],
    ],
    [
      'a scenario error does not echo ESC',
      'scenario.yaml',
      'name: "x\u001b[2J"\nbogus\u001b[31m: 1\n',
      ['compare', '--no-measure', 'scenario.yaml'],
    ],
  ];
  for (const [what, file, text, argv] of cases) {
    it(`${what}: exit 2 naming ${file}, no raw control character`, async () => {
      writeFileSync(join(scratch, file), text);
      const io = bufferIO({ cwd: scratch });
      expect(await run(argv, io)).toBe(2);
      expect(io.err()).toContain(file);
      expect(io.err()).not.toMatch(RAW_CONTROL);
      expect(io.out()).not.toMatch(RAW_CONTROL);
    });
  }
});

describe('escapeControl', () => {
  const cases: [string, string][] = [
    ['plain text', 'plain text'],
    ['a\rb\n', 'a\\rb\\n'],
    ['\u001b[31m', '\\x1b[31m'],
    ['\u009b31m', '\\x9b31m'],
    ['\u007f', '\\x7f'],
    ['tab\there', 'tab\\there'],
    ['é ok', 'é ok'],
  ];
  for (const [input, escaped] of cases) {
    it(`${JSON.stringify(input)} -> ${escaped}`, () => expect(escapeControl(input)).toBe(escaped));
  }

  it('describeValue leaves no raw control character', () => {
    expect(describeValue('a\u009bb\u007f')).not.toMatch(RAW_CONTROL);
  });
});
