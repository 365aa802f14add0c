import { InMemorySessionStore, InMemoryWindowStore } from '../../../streams/state/memory';
import { coarseExpiry } from '../../../streams/processors/common';

describe('in-memory window and session stores', () => {
  it('expire drops windows starting before the bound, also ones put after an earlier expiry', () => {
    const s = new InMemoryWindowStore<string, number>('w', 10, 100);
    s.put('a', 0, 1);
    s.put('a', 10, 2);
    s.put('b', 20, 3);
    s.expire(0); // nothing starts before 0
    expect(s.size()).toBe(3);
    s.expire(15);
    expect(s.all().map((e) => e.window.start)).toEqual([20]);
    s.put('c', 5, 4); // earlier than everything kept: the next expiry must see it
    s.expire(10);
    expect(s.all().map((e) => e.window.start)).toEqual([20]);
    s.expire(21);
    expect(s.size()).toBe(0);
  });

  it('session stores expire by session end', () => {
    const s = new InMemorySessionStore<string, number>('s');
    s.put('a', { start: 0, end: 5 }, 1);
    s.put('a', { start: 10, end: 12 }, 2);
    s.expire(6);
    expect(s.fetch('a').map((e) => e.window)).toEqual([{ start: 10, end: 12 }]);
    s.put('b', { start: 1, end: 2 }, 3);
    s.expire(3);
    expect(s.fetch('b')).toEqual([]);
  });

  it('coarseExpiry rounds the bound down to 1/16 of the retention', () => {
    expect(coarseExpiry(1000, 160)).toBe(1000);
    expect(coarseExpiry(1009, 160)).toBe(1000);
    expect(coarseExpiry(-5, 160)).toBe(-10);
    expect(coarseExpiry(7, 0)).toBe(7);
  });
});
