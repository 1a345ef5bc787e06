#!/usr/bin/env node
// The only place that turns a command's result into the process's exit code, and the only
// place that listens to process signals (for the commands that ask, via io.interrupts).
import { signalExitCode } from '../dist/cli/exit-codes.js';
import { run } from '../dist/cli/main.js';

// A reader that stops early (`ratelab compare | head`) closes the pipe: that is the reader's
// choice, not a failure, so the run ends quietly with 0 instead of an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

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
      if (controller.signal.aborted) process.exit(signalExitCode(signal));
      controller.abort(new Error(signal));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    return controller.signal;
  },
};

process.exitCode = await run(process.argv.slice(2), io);
