import { validate, version } from 'uuid';
import { expect, test } from 'vitest';
import { uuidv7 } from './uuid-v7';

test('ids are valid UUIDs of version 7, all different, sorting in the order they were made, their time the time they were made', () => {
  const before = Date.now();
  const ids = Array.from({ length: 5000 }, () => uuidv7());
  const after = Date.now();
  for (const id of ids.slice(0, 50)) {
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
    // The variant: 10xx.
    expect('89ab').toContain(id[19]);
  }
  expect(new Set(ids).size).toBe(ids.length);
  // Many in one millisecond, and still in order (the queue lists tickets of one moment by id).
  expect([...ids].sort()).toEqual(ids);
  const ms = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  expect(ms(ids[0]!)).toBeGreaterThanOrEqual(before);
  expect(ms(ids[ids.length - 1]!)).toBeLessThanOrEqual(after + 1);
});
