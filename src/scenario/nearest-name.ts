import { distance } from 'fastest-levenshtein';

/**
 * The name in `names` nearest to a mistyped `input` (Levenshtein distance), when it is
 * near enough to be what was meant: at most 2 edits, or a third of the input's length
 * for longer inputs. Undefined when nothing is that near; ties go to the first listed.
 */
export function nearestName(input: string, names: readonly string[]): string | undefined {
  const allowed = Math.max(2, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const name of names) {
    const d = distance(input, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
