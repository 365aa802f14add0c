/**
 * The streams task assignor (KIP-441 style): balanced and sticky per subtopology, stateful tasks
 * move only to caught-up instances (the planned one warms up meanwhile, within
 * maxWarmupReplicas), standbys on other instances preferring the least lagging copy; and the
 * membership data codecs.
 */
import { assignTasks, type AssignorInstance, type AssignorTask } from '../../../streams/runtime/assignor';
import {
  decodeAssignmentInfo,
  decodeMemberInfo,
  encodeAssignmentInfo,
  encodeMemberInfo,
} from '../../../streams/runtime/membership-data';

const tasks: AssignorTask[] = [0, 1, 2, 3].flatMap((p) => [
  { id: `0_${p}`, stateful: false },
  { id: `1_${p}`, stateful: true },
]);

function instance(id: string, active: string[] = [], lags: Record<string, number> = {}): AssignorInstance {
  return { memberId: id, order: `1${id}`, active: new Set(active), lags: new Map(Object.entries(lags)) };
}

const config = { numStandbys: 0, acceptableRecoveryLag: 100, maxWarmupReplicas: 2 };
const all = tasks.map((t) => t.id);

describe('assignTasks', () => {
  it('spreads every subtopology over the instances', () => {
    const out = assignTasks(tasks, [instance('a'), instance('b')], config);
    for (const m of ['a', 'b']) {
      expect(out.get(m)!.active.filter((t) => t.startsWith('0_'))).toHaveLength(2);
      expect(out.get(m)!.active.filter((t) => t.startsWith('1_'))).toHaveLength(2);
    }
  });

  it('a new instance that is not caught up warms up; stateless tasks move at once', () => {
    const out = assignTasks(tasks, [instance('a', all), instance('b')], config);
    const b = out.get('b')!;
    expect(b.active.every((t) => t.startsWith('0_'))).toBe(true);
    expect(b.active).toHaveLength(2);
    expect(b.warmup).toHaveLength(2);
    expect(out.get('a')!.active).toHaveLength(6);
  });

  it('once caught up, the task moves', () => {
    const lags = { '1_2': 5, '1_3': 0 };
    const out = assignTasks(tasks, [instance('a', all), instance('b', [], lags)], config);
    expect(out.get('b')!.active.sort()).toEqual(['0_2', '0_3', '1_2', '1_3']);
    expect(out.get('b')!.warmup).toEqual([]);
  });

  it('maxWarmupReplicas bounds the warm-ups', () => {
    const out = assignTasks(tasks, [instance('a', all), instance('b')], { ...config, maxWarmupReplicas: 1 });
    expect(out.get('b')!.warmup).toHaveLength(1);
  });

  it('standbys go to other instances, the least lagging copy first', () => {
    const out = assignTasks(
      tasks,
      [instance('a', all), instance('b', [], { '1_0': 3 }), instance('c', [], { '1_0': 50_000 })],
      { ...config, numStandbys: 1, maxWarmupReplicas: 0 },
    );
    const holders = (t: string) => [...out].filter(([, p]) => p.standby.includes(t)).map(([m]) => m);
    for (const t of ['1_0', '1_1', '1_2', '1_3']) {
      const active = [...out].find(([, p]) => p.active.includes(t))![0];
      expect(holders(t)).toHaveLength(1);
      expect(holders(t)).not.toContain(active);
    }
    expect(holders('0_0')).toEqual([]);
  });

  it('when no instance is caught up the plan stands (someone must restore)', () => {
    const out = assignTasks(tasks, [instance('a'), instance('b')], config);
    expect([...out.values()].flatMap((p) => p.warmup)).toEqual([]);
    expect([...out.values()].flatMap((p) => p.active).sort()).toEqual([...all].sort());
  });
});

describe('membership data', () => {
  it('round-trips and reads garbage as empty', () => {
    const m = decodeMemberInfo(encodeMemberInfo({ endpoint: '127.0.0.1:1', lags: new Map([['1_0', 4]]) }));
    expect(m.endpoint).toBe('127.0.0.1:1');
    expect(m.lags.get('1_0')).toBe(4);
    const a = decodeAssignmentInfo(
      encodeAssignmentInfo({
        active: ['0_1'],
        standby: ['1_0'],
        warmup: [],
        owners: new Map([['0_1', 'x:1']]),
      }),
    );
    expect(a).toEqual({ active: ['0_1'], standby: ['1_0'], warmup: [], owners: new Map([['0_1', 'x:1']]) });
    expect(decodeMemberInfo(Buffer.from('nope')).endpoint).toBe('');
    expect(decodeAssignmentInfo(Buffer.from('{"v":9}')).standby).toEqual([]);
  });
});
