import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Racing processes started once: each round lets them all go at one moment and collects each one's answer line. */
export interface Racers {
  /** Waits for every process's "ready", sends each "go", resolves with each one's next line, in process order. */
  round(): Promise<string[]>;
  /** Closes their stdin (the worker exits after its last round). */
  end(): void;
}

/**
 * Starts `count` processes of the TypeScript `worker` (run by tsx) with `args`. A worker
 * prints "ready", waits for a "go" line on stdin, races, prints one line; as many rounds as
 * it was told to run.
 */
export function startRacers(worker: string, args: readonly string[], count: number): Racers {
  const workers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    return { child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
  });
  const nextLine = async (worker: (typeof workers)[number]) => {
    const line = await worker.lines.next();
    if (line.done) throw new Error('a racing worker stopped early (see its stderr)');
    return line.value;
  };
  return {
    async round() {
      await Promise.all(workers.map(nextLine)); // "ready"
      for (const { child } of workers) child.stdin.write('go\n');
      return Promise.all(workers.map(nextLine));
    },
    end() {
      for (const { child } of workers) child.stdin.end();
    },
  };
}
