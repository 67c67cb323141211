import { expect, test } from 'vitest';
import { dateOrderReadings, firstDateOrderExample } from './date-order';

test('a year-last date whose parts could each be the month reads both ways; others are no example', () => {
  expect(dateOrderReadings('05/03/2022 10:21')).toEqual({ date: '05/03/2022', day_first: '5 March 2022', month_first: '3 May 2022' });
  expect(dateOrderReadings('1.12.2024')).toEqual({ date: '1.12.2024', day_first: '1 December 2024', month_first: '12 January 2024' });
  expect(dateOrderReadings('25/03/2022')).toBeUndefined();
  expect(dateOrderReadings('2022-03-05 10:21')).toBeUndefined();
  expect(dateOrderReadings('05/03-2022')).toBeUndefined();
  expect(dateOrderReadings('00/03/2022')).toBeUndefined();
  expect(firstDateOrderExample(['"x"', '13/01/2024', '07/04/2022'])).toMatchObject({ date: '07/04/2022', day_first: '7 April 2022' });
  expect(firstDateOrderExample([])).toBeUndefined();
});
