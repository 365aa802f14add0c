/** How `KTable.suppress` holds back updates. */
export type Suppressed =
  { readonly kind: 'untilWindowCloses' } | { readonly kind: 'untilTimeLimit'; readonly timeLimitMs: number };

export const Suppressed = {
  /** One final result per window, when the window closes (stream time >= end + grace). */
  untilWindowCloses(): Suppressed {
    return { kind: 'untilWindowCloses' };
  },
  /** The latest value of a key, `timeLimitMs` of stream time after its first held update. */
  untilTimeLimit(timeLimitMs: number): Suppressed {
    return { kind: 'untilTimeLimit', timeLimitMs };
  },
} as const;
