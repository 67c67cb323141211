import { expect, test } from 'vitest';
import { uuidv7 } from './ids';

test('UUID v7: version and variant bits, the time first, in order even within one millisecond', () => {
  const t = Date.UTC(2026, 0, 2, 3, 4, 5);
  const ids = Array.from({ length: 5000 }, (_, i) => uuidv7(t + Math.floor(i / 1000)));
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16)).toBe(t);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
});
