import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { PartitionStatus } from './partition/partition';

/**
 * Readiness (`tide.v1.Broker` health, what Kubernetes' readiness probe asks): a restarted broker is
 * ready once every partition it follows has it back in the ISR — so a rolling restart waits for
 * the replicas to catch up before taking the next broker down — or after readyCatchUpMaxMs, so a
 * partition whose leader is gone cannot hold it back forever. Once ready it stays ready.
 */
export function reportReadyWhenCaughtUp(
  server: { health: { setStatus(service: string, status: 'SERVING' | 'NOT_SERVING'): void } },
  replicas: { status(): PartitionStatus[] },
  config: { brokerId: number; readyCatchUpMaxMs: number },
  clock: Clock,
  logger: Logger,
): void {
  const giveUpAtMs = clock.nowMs() + config.readyCatchUpMaxMs;
  let timer: { cancel(): void } | undefined;
  const check = (): boolean => {
    const lagging = replicas
      .status()
      .filter((p) => p.role === 'follower' && p.leader >= 0 && !p.isr.includes(config.brokerId));
    const timedOut = clock.nowMs() >= giveUpAtMs;
    if (lagging.length > 0 && !timedOut) return false;
    server.health.setStatus('tide.v1.Broker', 'SERVING');
    timer?.cancel();
    if (timedOut && lagging.length > 0) {
      logger.warn(
        { lagging: lagging.length },
        'ready although some followed partitions have not caught up yet',
      );
    }
    return true;
  };
  if (!check()) timer = clock.setInterval(check, 500);
}
