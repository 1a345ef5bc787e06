// The rate-limit fields handed to a handler that writes them itself: rateLimitFetch then
// leaves the handler's Response as it is. Setting fields on a finished Response means
// reading its `headers`, and on @hono/node-server that turns the Response's plain header
// object into undici's Headers and sends it through the slower Headers path (docs/http.md,
// "Speed"); a handler that puts the fields in its own `new Response(body, { headers })`
// costs nothing of the kind, on any runtime. Runtime-neutral.
import { RatelabError, describeValue } from '../core/errors.js';
import { isThenable } from '../core/thenable.js';
import type { HeaderField } from '../http/headers.js';

/** The fields decided for one request, and whether its handler took them. */
interface Handed {
  readonly request: Request;
  readonly fields: readonly HeaderField[];
  taken: boolean;
}

/** The request whose handler rateLimitFetch is calling now (synchronously), if any. */
let running: Handed | undefined;
/** Requests whose handler returned a promise before taking its fields: it may take them after an await. */
const awaiting = new WeakMap<Request, Handed>();

/**
 * The rate-limit fields (X-RateLimit-*, the IETF fields, as the options ask) that
 * `rateLimitFetch` decided for `request`, as a plain object for the handler's own Response,
 * followed by `headers`, the handler's own (which win over a field of the same name, in any
 * letter case): `new Response(body, { headers: takeRateLimitFields(request, { 'content-type': 'text/plain' }) })`.
 * Taking them tells the middleware that the handler wrote them: it then leaves the
 * handler's Response untouched instead of setting the fields on it, which spares the
 * runtime from building the Response's `Headers` (a measurable share of a trivial
 * request's cost on `@hono/node-server`, see docs/http.md "Speed"). Prefer passing
 * `headers` to spreading the answer into another object literal: V8 builds
 * `{ ...fields, more }` on a slow path (measured there too). A handler that takes them and
 * leaves them out sends none. Call it with the very Request the handler was given, during
 * the handler (before or after an await); for any other request, or once the handler's
 * Response is returned, the fields part is empty (the answer is `headers` alone) and the
 * middleware sets the fields itself as usual. Empty also when the decision has none
 * (shadow mode with `shadowHeaders: 'none'`, a limiter that failed open). A denied request
 * never reaches the handler. `headers` must be an object of strings (`INVALID_ARGUMENT`
 * naming `headers` otherwise).
 */
export function takeRateLimitFields(
  request: Request,
  headers?: Readonly<Record<string, string>>,
): Record<string, string> {
  const own = headers === undefined ? undefined : ownHeaders(headers);
  const handed = running !== undefined && running.request === request ? running : awaiting.get(request);
  const record: Record<string, string> = {};
  if (handed !== undefined) {
    handed.taken = true;
    for (const [name, value] of handed.fields) if (own === undefined || !hasName(own, name)) record[name] = value;
  }
  if (own !== undefined) for (const name of own) record[name] = (headers as Record<string, string>)[name] as string;
  return record;
}

/** The names of the handler's own `headers`, checked. */
function ownHeaders(headers: unknown): string[] {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers) || headers instanceof Headers) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `headers: expected an object of header names and string values, got ${describeValue(headers)}`,
      { field: 'headers' },
    );
  }
  const names = Object.keys(headers);
  for (const name of names) {
    const value: unknown = (headers as Record<string, unknown>)[name];
    if (typeof value !== 'string') {
      throw new RatelabError('INVALID_ARGUMENT', `headers: ${name}: expected a string, got ${describeValue(value)}`, {
        field: 'headers',
      });
    }
  }
  return names;
}

/** Whether `names` has `name`, in any letter case (header names are case-insensitive). */
function hasName(names: readonly string[], name: string): boolean {
  for (const own of names) if (own.length === name.length && own.toLowerCase() === name.toLowerCase()) return true;
  return false;
}

/**
 * Calls `handler(request, ...rest)` with `fields` offered to it through
 * {@link takeRateLimitFields}, and answers its Response with the fields set on it
 * (`setFields`) unless the handler took them. A handler that throws or rejects keeps its
 * error. Sync when the handler is.
 */
export function handOver<Rest extends unknown[]>(
  handler: (request: Request, ...rest: Rest) => Response | PromiseLike<Response>,
  request: Request,
  rest: Rest,
  fields: readonly HeaderField[],
  setFields: (response: Response, fields: readonly HeaderField[]) => Response,
): Response | Promise<Response> {
  const handed: Handed = { request, fields, taken: false };
  const outer = running; // a handler may call another limited handler: restore its slot after
  running = handed;
  let answer: Response | PromiseLike<Response>;
  try {
    answer = handler(request, ...rest);
  } finally {
    running = outer;
  }
  if (!isThenable<Response>(answer)) return handed.taken ? answer : setFields(answer, fields);
  // Limited handlers nested: the innermost (which returned first) keeps the entry, as its
  // fields are the ones that win when each middleware sets them.
  if (!handed.taken && !awaiting.has(request)) awaiting.set(request, handed);
  const settled = () => {
    if (awaiting.get(request) === handed) awaiting.delete(request);
  };
  return Promise.resolve(answer).then(
    (response) => {
      settled();
      return handed.taken ? response : setFields(response, fields);
    },
    (error: unknown) => {
      settled();
      throw error;
    },
  );
}
