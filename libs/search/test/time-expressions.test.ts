import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlaps, timeExpressions, type DayRange } from '@memstream/search';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const iso = (r: DayRange) => [new Date(r.from).toISOString().slice(0, 10), new Date(r.to).toISOString().slice(0, 10)];
// LoCoMo's first session: 1:56 pm on 8 May 2023, a Monday
const SAID = Date.parse('2023-05-08T13:56:00Z');

test('relative expressions in a turn resolve against the time it was said', () => {
  assert.deepEqual(timeExpressions('I went to a support group yesterday.', SAID).map(iso), [
    ['2023-05-07', '2023-05-08'],
  ]);
  assert.deepEqual(timeExpressions('We went camping last week!', SAID).map(iso), [['2023-04-30', '2023-05-07']]);
  assert.deepEqual(timeExpressions('I painted that last year', SAID).map(iso), [['2022-01-01', '2023-01-01']]);
  assert.deepEqual(timeExpressions('It happened two days ago', SAID).map(iso), [['2023-05-06', '2023-05-07']]);
  assert.deepEqual(timeExpressions('See you next month', SAID).map(iso), [['2023-06-01', '2023-07-01']]);
  assert.deepEqual(timeExpressions('It was last Friday', SAID).map(iso), [['2023-05-05', '2023-05-06']]);
});

test('dates written out are read in either order, with or without the day', () => {
  assert.deepEqual(timeExpressions('What did Melanie show on October 13, 2023?', 0).map(iso), [
    ['2023-10-13', '2023-10-14'],
  ]);
  assert.deepEqual(timeExpressions('What did Gina find on 1 February, 2023?', 0).map(iso), [
    ['2023-02-01', '2023-02-02'],
  ]);
  assert.deepEqual(timeExpressions('What setback did Melanie face in October 2023?', 0).map(iso), [
    ['2023-10-01', '2023-11-01'],
  ]);
  // a day that does not exist is no day; its month still is one
  assert.deepEqual(timeExpressions('on 31 April 2023', 0).map(iso), [['2023-04-01', '2023-05-01']]);
});

test('a month alone matches that month of any year; "may" as a verb is no date', () => {
  const [june] = timeExpressions('When did Melanie go camping in June?', 0);
  assert.ok(june?.anyYear);
  assert.ok(overlaps(june, { from: day('2023-06-20'), to: day('2023-06-21') }));
  assert.ok(overlaps(june, { from: day('2021-06-01'), to: day('2021-06-02') }));
  assert.ok(!overlaps(june, { from: day('2023-07-01'), to: day('2023-07-02') }));
  assert.deepEqual(timeExpressions('You may want to come along', 0), []);
});

test('an exact range overlaps only the days inside it', () => {
  const [october] = timeExpressions('in October 2023', 0);
  assert.ok(overlaps(october!, { from: day('2023-10-31'), to: day('2023-11-01') }));
  assert.ok(!overlaps(october!, { from: day('2023-11-01'), to: day('2023-11-02') }));
  assert.ok(!overlaps(october!, { from: day('2022-10-15'), to: day('2022-10-16') }));
});
