import { describe, expect, it } from 'vitest';
import { parseRedisTarget } from '../../src/redis/client.js';

// What connectRedis accepts, checked before anything connects: a server URL with an
// optional database, or Sentinels (a redis+sentinel:// URL or { sentinels, name, db }).
describe('parseRedisTarget', () => {
  it.each([
    ['redis://127.0.0.1:6380', { kind: 'server', db: 0, label: '127.0.0.1:6380' }],
    ['redis://127.0.0.1:6380/', { kind: 'server', db: 0 }],
    ['rediss://localhost:6380/7', { kind: 'server', db: 7 }],
    [
      'redis+sentinel://127.0.0.1:26379,[::1]:26380/mymaster',
      {
        kind: 'sentinel',
        name: 'mymaster',
        db: 0,
        sentinels: [
          { host: '127.0.0.1', port: 26379 },
          { host: '::1', port: 26380 },
        ],
      },
    ],
    [
      'redis+sentinel://localhost:26379/mymaster/3',
      { kind: 'sentinel', name: 'mymaster', db: 3, label: 'master mymaster via Sentinels localhost:26379' },
    ],
  ])('%s', (url, expected) => {
    expect(parseRedisTarget(url, false)).toMatchObject(expected);
  });

  it('takes { sentinels, name, db }', () => {
    expect(
      parseRedisTarget({ sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'm', db: 2 }, false),
    ).toMatchObject({ kind: 'sentinel', name: 'm', db: 2 });
  });

  it.each([
    ['redis+sentinel://127.0.0.1:26379', /redis\+sentinel:\/\/host:port\[,host:port\.\.\.\]\/mastername\[\/db\]/],
    ['redis+sentinel://127.0.0.1:26379/m/x', /the database \(the URL's path\) must be a whole number/],
    ['redis+sentinel://127.0.0.1/m', /a Sentinel's address must be host:port/],
    ['redis+sentinel://127.0.0.1:70000/m', /a Sentinel's address must be host:port \(port 1-65535\)/],
    ['redis+sentinel://127.0.0.1:1/m/0/1', /redis\+sentinel:\/\/host:port/],
    ['http://127.0.0.1:1', /expected a redis:\/\/, rediss:\/\/ or redis\+sentinel:\/\/ URL/],
    ['not a url', /expected a URL such as/],
  ])('refuses %s with INVALID_ARGUMENT', (url, message) => {
    expect(() => parseRedisTarget(url, false)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'redis', message: expect.stringMatching(message) }),
    );
  });

  it.each([
    [{ sentinels: [], name: 'm' }, /at least one Sentinel/],
    [{ sentinels: [{ host: '127.0.0.1', port: 26379 }], name: '' }, /the master group's name/],
    [{ sentinels: [{ host: '127.0.0.1', port: 0 }], name: 'm' }, /a Sentinel must be \{ host, port \}/],
    [{ sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'm', db: -1 }, /db to be a whole number/],
  ])('refuses %j with INVALID_ARGUMENT', (target, message) => {
    expect(() => parseRedisTarget(target, false)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }),
    );
  });
});
