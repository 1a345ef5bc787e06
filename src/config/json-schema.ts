import { z } from 'zod';

/**
 * The JSON Schema (draft 2020-12) of a file format, as written (durations and rates still
 * text), generated from its zod schema so the two cannot drift, with a title and a
 * description for editors. Rules across fields are checked only by ratelab itself.
 */
export function jsonSchemaOf(schema: z.ZodType, title: string, description: string): Record<string, unknown> {
  return { ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), title, description };
}

/** A JSON Schema as the text of a shipped file: 2-space JSON with a final newline. */
export function jsonSchemaText(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
