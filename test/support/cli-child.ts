// The CLI from source in a process of its own, like bin/ratelab.js but without a build:
// for tests that bound the child's memory (`node --max-old-space-size=N --import tsx`), so
// a run whose memory follows something it should not crashes instead of passing.
import { run } from '../../src/cli/main.js';

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
