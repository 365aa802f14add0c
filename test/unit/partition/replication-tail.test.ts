/**
 * ReplicationTail: the leader's newest appends kept in memory for followers. Entries chain by
 * offset, a fetch is served only from an entry's base offset and within its budget, in-sync
 * followers' progress releases entries, and the byte cap bounds what a stalled follower pins.
 */
import { ReplicationTail } from '../../../services/broker/partition/replication-tail';

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

describe('ReplicationTail', () => {
  it('serves whole entries from an entry start, several up to the budget, the first always', () => {
    const tail = new ReplicationTail();
    tail.add(bytes(10, 1), 0, 5);
    tail.add(bytes(10, 2), 5, 7);
    tail.add(bytes(10, 3), 7, 9);
    expect(tail.read(5, 100)).toEqual(Buffer.concat([bytes(10, 2), bytes(10, 3)]));
    expect(tail.read(0, 25)).toEqual(Buffer.concat([bytes(10, 1), bytes(10, 2)]));
    expect(tail.read(7, 10)).toEqual(bytes(10, 3));
  });

  it('serves nothing it cannot serve exactly: inside an entry, past the end, a first entry over budget', () => {
    const tail = new ReplicationTail();
    tail.add(bytes(10, 1), 0, 5);
    tail.add(bytes(10, 2), 5, 7);
    expect(tail.read(3, 100)).toBeUndefined();
    expect(tail.read(7, 100)).toBeUndefined();
    expect(tail.read(5, 9)).toBeUndefined();
  });

  it('a gap in offsets (an append it did not see) starts the tail anew', () => {
    const tail = new ReplicationTail();
    tail.add(bytes(10, 1), 0, 5);
    tail.add(bytes(10, 2), 6, 8);
    expect(tail.read(0, 100)).toBeUndefined();
    expect(tail.read(6, 100)).toEqual(bytes(10, 2));
    expect(tail.entryCount).toBe(1);
  });

  it('release drops what every follower that counts has fetched', () => {
    const tail = new ReplicationTail();
    tail.add(bytes(10, 1), 0, 5);
    tail.add(bytes(10, 2), 5, 7);
    tail.release(6);
    expect(tail.read(0, 100)).toBeUndefined();
    expect(tail.read(5, 100)).toEqual(bytes(10, 2));
    tail.release(7);
    expect(tail.entryCount).toBe(0);
    expect(tail.sizeBytes).toBe(0);
  });

  it('holds at most the cap beyond its newest entry, however large that one is', () => {
    const tail = new ReplicationTail(25);
    for (let i = 0; i < 5; i++) tail.add(bytes(10, i), i, i + 1);
    expect(tail.sizeBytes).toBeLessThanOrEqual(35);
    expect(tail.read(4, 100)).toEqual(bytes(10, 4));
    expect(tail.read(0, 100)).toBeUndefined();
    tail.add(bytes(100, 9), 5, 6);
    expect(tail.sizeBytes - 100).toBeLessThanOrEqual(25);
    expect(tail.read(5, 1000)).toEqual(bytes(100, 9));
  });
});
