import { expect, it } from 'vitest';
import { hashSlot } from '../../src/redis/hash-slot.js';

// Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
it.each([
  ['123456789', 12739],
  ['foo', 12182],
  ['user1000', hashSlot('{user1000}.following')],
  ['{user1000}.followers', hashSlot('{user1000}.following')],
  ['foo{}{bar}', hashSlot('foo{}{bar}')],
  ['{}x', hashSlot('{}x')],
])('hashSlot(%j) = %i', (key, slot) => {
  expect(hashSlot(key)).toBe(slot);
});

it('an empty tag hashes the whole key; only the first tag counts', () => {
  expect(hashSlot('foo{}{bar}')).not.toBe(hashSlot('bar'));
  expect(hashSlot('foo{{bar}}zap')).toBe(hashSlot('{bar'));
  expect(hashSlot('foo{bar}{zap}')).toBe(hashSlot('bar'));
});
