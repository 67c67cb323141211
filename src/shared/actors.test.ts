import { expect, test } from 'vitest';
import { actorLabel, actorLabelStart } from './actors';

test('a door word is shown as what a person would call it; a name, as it is', () => {
  expect(actorLabel('Anna Berg')).toBe('Anna Berg');
  expect(actorLabel('ui')).toBe('the app');
  expect(actorLabel('cli')).toBe('the command line');
  expect(actorLabel('api')).toBe('a local tool');
  expect(actorLabel(`api:${'3f9a1c'.padEnd(60, '0')}7b20`)).toBe('API key 3f9a1c…7b20');
  expect(actorLabel('api:k1')).toBe('API key k1');
  expect(actorLabel('')).toBe('someone');
  // Only the whole word is a door: a name that starts like one stays a name.
  expect(actorLabel('uiko')).toBe('uiko');
  expect(actorLabelStart('ui')).toBe('The app');
  expect(actorLabelStart('Anna')).toBe('Anna');
});
