/** The producer's job queue: first in, first out, across the compaction of its consumed prefix. */
import { Fifo } from '../../../client/producer/fifo';

it('keeps order through pushes and shifts interleaved past the compaction threshold', () => {
  const q = new Fifo<number>();
  const model: number[] = [];
  let next = 0;
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 300; i++) {
      q.push(next);
      model.push(next++);
    }
    for (let i = 0; i < 200; i++) expect(q.shift()).toBe(model.shift());
    expect(q.length).toBe(model.length);
    expect(q.peek()).toBe(model[0]);
  }
  while (model.length > 0) expect(q.shift()).toBe(model.shift());
  expect(q.length).toBe(0);
  expect(q.shift()).toBeUndefined();
  expect(q.peek()).toBeUndefined();
});
