/** The controller's partition health gauges: under-replicated, offline, balance score. */
import type { PartitionView, TopicState } from '../../../services/common/cluster/topic-watcher';
import { clusterHealth } from '../../../services/controller/cluster-health';

function topic(
  name: string,
  partitions: Omit<PartitionView, 'partition' | 'leaderEpoch' | 'partitionEpoch'>[],
): TopicState {
  return {
    name,
    topicId: `${name}-id`,
    internal: false,
    replicationFactor: 3,
    partitionCount: partitions.length,
    configs: {},
    maxMessageBytes: 1 << 20,
    createdAtMs: 0,
    partitions: partitions.map((p, i) => ({ partition: i, leaderEpoch: 0, partitionEpoch: 0, ...p })),
  };
}

describe('clusterHealth', () => {
  const live = new Set([0, 1, 2]);

  it('counts partitions with a replica out of the ISR, and those without a live leader', () => {
    const health = clusterHealth(
      [
        topic('a', [
          { leader: 0, replicas: [0, 1, 2], isr: [0, 1, 2] },
          { leader: 1, replicas: [1, 2, 0], isr: [1, 2] }, // under-replicated
          { leader: -1, replicas: [2, 0, 1], isr: [2] }, // offline and under-replicated
        ]),
        topic('b', [{ leader: 3, replicas: [3, 0, 1], isr: [3, 0, 1] }]), // leader 3 is not live
      ],
      live,
    );
    expect(health).toMatchObject({ partitions: 4, underReplicated: 2, offline: 2 });
  });

  it('does not count a move in flight whose new copy is still catching up', () => {
    const moving = {
      leader: 0,
      replicas: [0, 1, 2, 3],
      isr: [0, 1, 2],
      addingReplicas: [3],
      removingReplicas: [0],
    };
    expect(clusterHealth([topic('a', [moving])], live).underReplicated).toBe(0);
    // ...but a kept replica falling out of the ISR during the move does count.
    const lagging = { ...moving, isr: [0, 1] };
    expect(clusterHealth([topic('a', [lagging])], live).underReplicated).toBe(1);
  });

  it('scores 1 for an even spread and average/maximum of the worse count otherwise', () => {
    const even = topic('a', [
      { leader: 0, replicas: [0, 1], isr: [0, 1] },
      { leader: 1, replicas: [1, 2], isr: [1, 2] },
      { leader: 2, replicas: [2, 0], isr: [2, 0] },
    ]);
    expect(clusterHealth([even], live).balanceScore).toBe(1);
    // Broker 2 joined and got nothing yet.
    const skewed = topic('a', [
      { leader: 0, replicas: [0, 1], isr: [0, 1] },
      { leader: 1, replicas: [1, 0], isr: [1, 0] },
      { leader: 0, replicas: [0, 1], isr: [0, 1] },
    ]);
    // replicas: 3,3,0 → 2/3; preferred leaders: 2,1,0 → 1/2.
    expect(clusterHealth([skewed], live).balanceScore).toBeCloseTo(0.5);
    expect(clusterHealth([], live).balanceScore).toBe(1);
  });
});
