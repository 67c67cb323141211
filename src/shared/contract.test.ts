import { describe, expect, it } from 'vitest';
import { mergeUnique } from './contract';

describe('mergeUnique', () => {
  it('combines maps', () => {
    expect(mergeUnique({ a: 1 }, { b: 2 })).toEqual({ a: 1, b: 2 });
  });
  it('refuses the same handler name twice', () => {
    expect(() => mergeUnique({ 'tickets-list': 1 }, { 'tickets-list': 2 })).toThrow('duplicate handler name: tickets-list');
  });
});
