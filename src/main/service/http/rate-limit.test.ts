import { expect, test } from 'vitest';
import { createRateLimiter } from './rate-limit';

test('a token bucket per caller: a burst of max, then a steady refill', () => {
  let now = 0;
  const limit = createRateLimiter({ max: 3, windowMs: 3000 }, () => now);
  expect([limit('a'), limit('a'), limit('a')]).toEqual([0, 0, 0]);
  expect(limit('a')).toBe(1000);
  expect(limit('b')).toBe(0);
  now = 999;
  expect(limit('a')).toBe(1);
  now = 1000;
  expect(limit('a')).toBe(0);
  expect(limit('a')).toBe(1000);
  now = 100_000;
  expect([limit('a'), limit('a'), limit('a'), limit('a')]).toEqual([0, 0, 0, 1000]);
});
