import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conventionGroup, readAnnouncement } from '../../src/core/header-fields.js';
import { judgeHeaders, retryCheckPlan, type RetryCheck, type SequenceResponse } from '../../src/audit/header-truth.js';
import { listenOnLoopback } from '../support/listen-app.js';

/** express-rate-limit's fixed window: 3 per 2 s, keyed by a header so each key is a fresh identity. */
const LIMIT = 3;
const WINDOW_MS = 2000;
/** The recovery probe polls this often. */
const POLL_MS = 50;

describe('judgeHeaders on express-rate-limit (draft-8 and legacy fields), the checks run as planned', () => {
  let origin = '';
  let close: () => Promise<void> = async () => undefined;
  const start = performance.now();
  const now = () => performance.now() - start;

  beforeAll(async () => {
    const app = express();
    const limiter = rateLimit({
      windowMs: WINDOW_MS,
      limit: LIMIT,
      standardHeaders: 'draft-8',
      legacyHeaders: true,
      keyGenerator: (req) => String(req.headers['x-key']),
    });
    app.get('/', limiter, (_req, res) => {
      res.send('ok');
    });
    ({ origin, close } = await listenOnLoopback(app));
  });
  afterAll(() => close());

  async function send(key: string): Promise<SequenceResponse> {
    const sentMs = now();
    const epochMs = performance.timeOrigin + performance.now();
    const res = await fetch(origin, { headers: { 'x-key': key } });
    await res.text();
    const headers: Record<string, string> = {};
    for (const [name, value] of res.headers) if (conventionGroup(name) !== undefined) headers[name] = value;
    return { sentMs, epochMs, admitted: res.status === 200, headers };
  }

  /** Sequential requests from a fresh key through its first denial. */
  async function sprint(key: string): Promise<SequenceResponse[]> {
    const sequence: SequenceResponse[] = [];
    do sequence.push(await send(key));
    while (sequence.at(-1)!.admitted);
    return sequence;
  }

  async function sendAt(key: string, sentMs: number): Promise<SequenceResponse> {
    await sleep(Math.max(0, sentMs - now()));
    return send(key);
  }

  it('every field it sends is judged truthful, and no convention is missing', async () => {
    const [sequence, twin, polled] = await Promise.all([sprint('a'), sprint('b'), sprint('c')]);
    const checks: Promise<RetryCheck>[] = [];
    const check = (key: string, denial: SequenceResponse, at: 'at' | 'early') => {
      const plan = retryCheckPlan(readAnnouncement(denial.headers, denial.epochMs), denial.sentMs)!;
      const sentMs = at === 'at' ? plan.atSentMs : plan.earlySentMs;
      if (sentMs === undefined) return;
      checks.push(
        sendAt(key, sentMs).then((shot) => ({
          fields: plan.fields,
          announcedMs: plan.announcedMs,
          sentAfterMs: shot.sentMs - denial.sentMs,
          admitted: shot.admitted,
        })),
      );
    };
    check('a', sequence.at(-1)!, 'at');
    check('b', twin.at(-1)!, 'early');
    const recovery = (async () => {
      const denial = polled.at(-1)!;
      for (;;) {
        const shot = await sendAt('c', now() + POLL_MS);
        if (shot.admitted) return shot.sentMs - denial.sentMs;
      }
    })();
    const [retryChecks, recoveryMs] = await Promise.all([Promise.all(checks), recovery]);
    const verdicts = judgeHeaders({
      sequence,
      retryChecks,
      measured: {
        family: 'fixed-window',
        limit: LIMIT,
        windowMs: WINDOW_MS,
        recoveryMs,
        recoveryResolutionMs: POLL_MS,
      },
    });
    expect(verdicts.filter((v) => v.verdict === 'wrong')).toEqual([]);
    expect(verdicts.map((v) => [v.name, v.verdict])).toEqual([
      ['Retry-After', 'truthful'],
      ['X-RateLimit-Limit', 'truthful'],
      ['X-RateLimit-Remaining', 'truthful'],
      ['X-RateLimit-Reset', 'truthful'],
      ['RateLimit r', 'truthful'],
      ['RateLimit t', 'truthful'],
      ['RateLimit-Policy', 'truthful'],
    ]);
  });
});
