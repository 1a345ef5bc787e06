import { fileURLToPath } from 'node:url';

/** Absolute path of a tiers fixture under test/fixtures/tiers. */
export function tiersFixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/tiers/${name}`, import.meta.url));
}
