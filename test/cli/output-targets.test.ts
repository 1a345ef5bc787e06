import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  createReadStream,
  openSync,
  writeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { writeOutputs } from '../../src/report/write-output.js';
import { TINY_BENCH } from '../support/tiny-bench.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-outputs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each command that writes --csv/--json, with the rest of a quick run (attack's target refuses connections: it must never be reached). */
const COMMANDS: [string, string[]][] = [
  ['compare', ['compare', 'edge-attack', '--no-measure', '--no-chart']],
  ['distributed', ['distributed', '--no-chart']],
  ['fidelity', ['fidelity', '--only', 'edge']],
  ['attack', ['attack', 'http://127.0.0.1:9/', 'edge-attack', '--no-probe']],
  ['bench', ['bench', '--quick', '--rounds', '2', '--time', '10ms', '--keys', '10']],
];

/** Bad targets, with what the message must say about them. */
const BAD_TARGETS: [string, (dir: string) => string, RegExp][] = [
  [
    'a folder',
    (dir) => {
      mkdirSync(join(dir, 'folder'));
      return 'folder';
    },
    /folder: is a folder/,
  ],
  ['a file in a missing folder', () => 'missing/out.json', /does not exist/],
  [
    'a file under a file',
    (dir) => {
      writeFileSync(join(dir, 'plain'), 'x');
      return 'plain/out.json';
    },
    /is not a folder|does not exist/,
  ],
];

describe('output targets are checked before anything is written or run', () => {
  for (const [name, argv] of COMMANDS) {
    for (const [what, make, message] of BAD_TARGETS) {
      it(`${name} --csv ok.csv --json <${what}>: exit 2 naming it, ok.csv untouched`, async () => {
        const dir = mkdtempSync(join(scratch, `${name}-`));
        writeFileSync(join(dir, 'ok.csv'), 'before\n');
        const target = make(dir);
        const io = bufferIO({ cwd: dir });
        expect(await run([...argv, '--csv', 'ok.csv', '--json', target], io)).toBe(2);
        expect(io.err()).toMatch(/--json/);
        expect(io.err()).toContain(target);
        expect(io.err()).toMatch(message);
        expect(readFileSync(join(dir, 'ok.csv'), 'utf8')).toBe('before\n');
      });
    }
  }

  it('refuses --csv and --json naming the same file', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', 'edge-attack', '--no-measure', '--csv', 'same.out', '--json', './same.out'], io)).toBe(
      2,
    );
    expect(io.err()).toMatch(/--json: .*same\.out.*--csv/);
  });
});

describe('writeOutputs', () => {
  it('writes all the files or none: a failure on the second leaves the first as it was, and no temporary file', async () => {
    const dir = mkdtempSync(join(scratch, 'all-or-none-'));
    writeFileSync(join(dir, 'ok.csv'), 'before\n');
    const io = bufferIO({ cwd: dir });
    await expect(
      writeOutputs(
        [
          { target: 'ok.csv', content: 'after\n' },
          { target: 'missing/out.json', content: '{}' },
        ],
        io,
      ),
    ).rejects.toThrow(/ENOENT/);
    expect(readFileSync(join(dir, 'ok.csv'), 'utf8')).toBe('before\n');
    expect(readdirSync(dir)).toEqual(['ok.csv']);
  });

  it('replaces every file once all are written, and sends - to stdout', async () => {
    const dir = mkdtempSync(join(scratch, 'all-'));
    writeFileSync(join(dir, 'ok.csv'), 'before\n');
    const io = bufferIO({ cwd: dir });
    await writeOutputs(
      [
        { target: 'ok.csv', content: 'after\n' },
        { target: '-', content: 'data\n' },
      ],
      io,
    );
    expect(readFileSync(join(dir, 'ok.csv'), 'utf8')).toBe('after\n');
    expect(io.out()).toBe('data\n');
    expect(readdirSync(dir)).toEqual(['ok.csv']);
  });
});

describe('writeOutputs writes through what the target is', () => {
  it('a symlink stays a symlink: the file it points to is replaced', async () => {
    const dir = mkdtempSync(join(scratch, 'link-'));
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real/out.csv'), 'before\n');
    symlinkSync('real/out.csv', join(dir, 'link.csv'));
    await writeOutputs([{ target: 'link.csv', content: 'after\n' }], bufferIO({ cwd: dir }));
    expect(lstatSync(join(dir, 'link.csv')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real/out.csv'), 'utf8')).toBe('after\n');
    expect(readdirSync(join(dir, 'real'))).toEqual(['out.csv']);
  });

  it('an existing file keeps its mode', async () => {
    const dir = mkdtempSync(join(scratch, 'mode-'));
    writeFileSync(join(dir, 'secret.json'), '{}', { mode: 0o600 });
    chmodSync(join(dir, 'secret.json'), 0o600);
    await writeOutputs([{ target: 'secret.json', content: '{"a":1}' }], bufferIO({ cwd: dir }));
    expect(statSync(join(dir, 'secret.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'secret.json'), 'utf8')).toBe('{"a":1}');
  });

  it('a FIFO is written directly, not replaced by a regular file', async () => {
    const dir = mkdtempSync(join(scratch, 'fifo-'));
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = new Promise<string>((done) => {
      const chunks: Buffer[] = [];
      createReadStream(fifo)
        .on('data', (chunk) => chunks.push(chunk as Buffer))
        .on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    });
    await writeOutputs([{ target: 'pipe', content: 'through the pipe\n' }], bufferIO({ cwd: dir }));
    expect(await reader).toBe('through the pipe\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  // A null device of its own (needs mknod, so root): never the system's /dev/null, which a
  // regression would replace.
  it.runIf(process.getuid?.() === 0)('a character device is written directly', async () => {
    const dir = mkdtempSync(join(scratch, 'device-'));
    const device = join(dir, 'null');
    execFileSync('mknod', ['-m', '666', device, 'c', '1', '3']);
    await writeOutputs([{ target: 'null', content: 'gone\n' }], bufferIO({ cwd: dir }));
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
  });
});

/** Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): the full-disk tests need one. */
function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(scratch, 'mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A 64 kB tmpfs holding `ok.html` ("before") and a filler file that takes every byte left,
 * for the duration of `body`: a real full disk, where creating an empty file still works
 * (so a pre-check passes) and writing any content fails with ENOSPC.
 */
async function withFullDisk(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(scratch, 'full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
  try {
    writeFileSync(join(dir, 'ok.html'), 'before\n');
    const page = Buffer.alloc(4096, 'x');
    const filler = openSync(join(dir, 'filler'), 'w');
    try {
      for (;;) writeSync(filler, page);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(filler);
    }
    await body(dir);
  } finally {
    execFileSync('umount', [dir]);
  }
}

describe('a write that fails after the run: exit 74, one line naming the file, nothing already written lost', () => {
  it.runIf(canMountTmpfs()).each([
    ['compare --html', ['compare', 'edge-attack', '--no-measure', '--no-chart', '--html', 'ok.html']],
    ['bench --json', [...TINY_BENCH, '--json', 'ok.html']],
    [
      'compare --csv new.csv (a new file)',
      ['compare', 'edge-attack', '--no-measure', '--no-chart', '--csv', 'new.csv'],
    ],
  ])('%s on a full disk', async (_name, argv) => {
    await withFullDisk(async (dir) => {
      const io = bufferIO({ cwd: dir });
      expect(await run(argv, io)).toBe(74);
      const target = argv.at(-1) as string;
      expect(io.err()).toMatch(
        new RegExp(
          `^ratelab: ${target.replace('.', '\\.')}: cannot be written \\(ENOSPC: no space left on the device\\); every existing file was left as it was\\n$`,
        ),
      );
      expect(readFileSync(join(dir, 'ok.html'), 'utf8')).toBe('before\n');
      expect(readdirSync(dir).sort()).toEqual(['filler', 'ok.html']);
    });
  });

  // A full device of its own (mknod, so root), like /dev/full: written directly, it fails on write.
  it.runIf(process.getuid?.() === 0).each([
    ['compare --json', ['compare', 'edge-attack', '--no-measure', '--no-chart', '--csv', 'ok.csv', '--json', 'full']],
    ['bench --json', [...TINY_BENCH, '--csv', 'ok.csv', '--json', 'full']],
  ])('%s to a device that is always full', async (_name, argv) => {
    const dir = mkdtempSync(join(scratch, 'device-full-'));
    execFileSync('mknod', ['-m', '666', join(dir, 'full'), 'c', '1', '7']);
    const io = bufferIO({ cwd: dir });
    expect(await run(argv, io)).toBe(74);
    expect(io.err()).toMatch(
      /^ratelab: full: cannot be written \(ENOSPC: no space left on the device\); ok\.csv was written\n$/,
    );
    // The CSV, written before the device, is whole.
    expect(readFileSync(join(dir, 'ok.csv'), 'utf8')).toMatch(/^scenario,|^subject,|^name,|^[a-z]/);
  });

  // As root, permission bits pass every access() check; /proc takes no new file whatever the bits say.
  it.runIf(process.getuid?.() === 0).each([
    ['bench --json', [...TINY_BENCH, '--json', '/proc/ratelab-out.json']],
    ['compare --html', ['compare', 'edge-attack', '--no-measure', '--no-chart', '--html', '/proc/ratelab-out.html']],
  ])(
    '%s /proc/x: refused before the run (exit 2), the pre-check having tried to create a file there',
    async (_name, argv) => {
      const io = bufferIO({ cwd: scratch });
      expect(await run(argv, io)).toBe(2);
      const target = argv.at(-1) as string;
      expect(io.err()).toMatch(
        new RegExp(`^ratelab: --(json|html): ${target}: no file can be created in /proc \\(ENOENT\\)\\n$`),
      );
    },
  );
});
