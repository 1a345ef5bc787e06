// The resolve hook of record-loads.mjs: logs each file: URL resolved, as a path.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let log;
export function initialize(data) {
  log = data.log;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith('file:')) appendFileSync(log, `${fileURLToPath(result.url)}\n`);
  return result;
}
