/**
 * CI's short fixed-seed chaos run (test/harness/chaos.ts): every fault kind may be drawn; the
 * history and the committed group offsets must come out clean. The seed is in the test name.
 * Long runs: `npm run chaos -- --seed N --duration 600` (docs/reliability.md).
 */
import { runChaos, summarizeFaults } from '../harness/chaos';

jest.setTimeout(180_000);

const SEED = 12;

test(`chaos seed ${SEED}, 30 s of faults: nothing acknowledged lost, duplicated or moved; group offsets never go back`, async () => {
  const lines: string[] = [];
  const report = await runChaos({ seed: SEED, durationS: 30, log: (l) => lines.push(l) });
  const detail = [
    ...lines,
    JSON.stringify(summarizeFaults(report.faults)),
    report.historySummary,
    JSON.stringify(report.commits.wentBack.slice(0, 5)),
  ].join('\n');
  if (!report.ok) throw new Error(`chaos seed ${SEED} found violations:\n${detail}`);
  expect(report.faults.length).toBeGreaterThan(0);
  expect(report.history.acked).toBeGreaterThan(0);
});
