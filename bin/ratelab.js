#!/usr/bin/env node
// The only place that turns a command's result into the process's exit code.
import { run } from '../dist/cli/main.js';

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
};

process.exitCode = await run(process.argv.slice(2), io);
