import { coarseExpiry } from '../../../streams/processors/common';

// The window and session stores' cases run against the in-memory and LMDB stores alike:
// window-stores.test.ts.
describe('store retention helpers', () => {
  it('coarseExpiry rounds the bound down to 1/16 of the retention', () => {
    expect(coarseExpiry(1000, 160)).toBe(1000);
    expect(coarseExpiry(1009, 160)).toBe(1000);
    expect(coarseExpiry(-5, 160)).toBe(-10);
    expect(coarseExpiry(7, 0)).toBe(7);
  });
});
