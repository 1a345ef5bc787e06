#!/usr/bin/env node
// The only place that turns a command's result into the process's exit code, and the only
// place that listens to process signals (for the commands that ask, via io.interrupts).
import { run } from '../dist/cli/main.js';

let controller;
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  interrupts() {
    if (controller) return controller.signal;
    controller = new AbortController();
    const stop = (signal) => {
      // A second signal while stopping means "now": restore the default and exit.
      if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
      controller.abort(new Error(signal));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    return controller.signal;
  },
};

process.exitCode = await run(process.argv.slice(2), io);
