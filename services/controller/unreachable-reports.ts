/**
 * Reports of follower brokers that cannot reach a leader broker (the ReportLeaderUnreachable RPC),
 * each counting for reportTtlMs after it arrives; followers repeat them while the silence lasts.
 * The reconciler reads the current ones (partition-leadership.ts leaderCutOff) to move leadership
 * away from a leader that is alive for etcd but cut off from its followers.
 */
import type { Clock } from '../common/clock';

/** How long one report counts. Followers repeat theirs about every second. */
export const DEFAULT_UNREACHABLE_REPORT_TTL_MS = 5_000;

export class UnreachableReports {
  /** leader → reporter → when the report stops counting. */
  private readonly reports = new Map<number, Map<number, number>>();

  constructor(
    private readonly clock: Clock,
    private readonly reportTtlMs = DEFAULT_UNREACHABLE_REPORT_TTL_MS,
  ) {}

  /** Records that `reporter` cannot reach `leader`; true when this is news (not a repeat). */
  report(reporter: number, leader: number): boolean {
    const nowMs = this.clock.nowMs();
    let byReporter = this.reports.get(leader);
    if (!byReporter) this.reports.set(leader, (byReporter = new Map()));
    const fresh = (byReporter.get(reporter) ?? 0) <= nowMs;
    byReporter.set(reporter, nowMs + this.reportTtlMs);
    return fresh;
  }

  /** Leader → the brokers whose reports about it still count. */
  current(): ReadonlyMap<number, ReadonlySet<number>> {
    const nowMs = this.clock.nowMs();
    const out = new Map<number, Set<number>>();
    for (const [leader, byReporter] of this.reports) {
      for (const [reporter, untilMs] of byReporter) {
        if (untilMs <= nowMs) byReporter.delete(reporter);
        else out.set(leader, (out.get(leader) ?? new Set()).add(reporter));
      }
      if (byReporter.size === 0) this.reports.delete(leader);
    }
    return out;
  }

  /** Forgets everything (a controller that steps down). */
  clear(): void {
    this.reports.clear();
  }
}
