// The rate-limit fields handed to a handler that writes them itself: rateLimitFetch then
// leaves the handler's Response as it is. Setting fields on a finished Response means
// reading its `headers`, and on @hono/node-server that turns the Response's plain header
// object into undici's Headers and sends it through the slower Headers path (docs/http.md,
// "Speed"); a handler that puts the fields in its own `new Response(body, { headers })`
// costs nothing of the kind, on any runtime. Runtime-neutral.
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
 * `rateLimitFetch` decided for `request`, as a plain object for the handler to put in its
 * own Response: `new Response(body, { headers: { ...takeRateLimitFields(request), 'content-type': 'text/plain' } })`
 * (spread first, so the handler's own fields win, as they do when the middleware adds them).
 * Taking them tells the middleware that the handler wrote them: it then leaves the
 * handler's Response untouched instead of setting the fields on it, which spares the
 * runtime from building the Response's `Headers` (a measurable share of a trivial
 * request's cost on `@hono/node-server`, see docs/http.md). A handler that takes them and
 * leaves them out sends none. Call it with the very Request the handler was given, during
 * the handler (before or after an await); for any other request, or once the handler's
 * Response is returned, it answers `{}` and the middleware adds the fields itself as usual.
 * An empty object also when the decision has no fields (shadow mode with `shadowHeaders:
 * 'none'`, a limiter that failed open). Admitted requests only: a denied one never
 * reaches the handler.
 */
export function takeRateLimitFields(request: Request): Record<string, string> {
  const handed = running !== undefined && running.request === request ? running : awaiting.get(request);
  if (handed === undefined) return {};
  handed.taken = true;
  const record: Record<string, string> = {};
  for (const [name, value] of handed.fields) record[name] = value;
  return record;
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
