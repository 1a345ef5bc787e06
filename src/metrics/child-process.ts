import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The file of module `name` beside the module at `metaUrl`, with that module's own
 * extension: `.ts` when running from the sources (tests, tsx), `.js` from dist/.
 */
export function siblingModule(metaUrl: string, name: string): string {
  const self = fileURLToPath(metaUrl);
  const extension = self.endsWith('.ts') ? 'ts' : 'js';
  return fileURLToPath(new URL(`${name}.${extension}`, metaUrl));
}

/**
 * Runs the script `file` in a fresh Node process with `arg` (JSON) as its one argument (or
 * on its stdin, with `stdin: true`: an argument is limited to 128 KiB) and returns the last
 * line it printed on stdout, parsed as JSON. A fresh process isolates what is measured from
 * everything this process has loaded, compiled and allocated.
 * TypeScript scripts are loaded through tsx (a dev dependency), as under the tests.
 */
export async function runNodeChild<T>(
  file: string,
  arg: unknown,
  options: { nodeFlags?: readonly string[]; timeoutMs: number; what: string; stdin?: boolean },
): Promise<T> {
  const json = JSON.stringify(arg);
  const args = [
    ...(options.nodeFlags ?? []),
    ...(file.endsWith('.ts') ? ['--import', 'tsx'] : []),
    file,
    ...(options.stdin ? [] : [json]),
  ];
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      args,
      { timeout: options.timeoutMs, maxBuffer: 64 << 20 },
      (error, out, err) => {
        if (error) reject(new Error(`${options.what} failed: ${(err || error.message).trim().split('\n').pop()}`));
        else resolve(out);
      },
    );
    if (options.stdin) child.stdin?.end(json);
  });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as T;
}
