/** The V8 heap growing setting of Tide's services: applied unless node was given its own. */
import { HEAP_GROWING_PERCENT, tuneGcForBufferTraffic } from '../../../services/common/gc-tuning';

it.each([
  [[], [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]],
  [['--max-old-space-size=512'], [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]],
  [['--heap-growing-percent=100'], []],
  [['--heap-growing-percent', '100'], []],
])('with node flags %j sets %j', (execArgv, expected) => {
  const set: string[] = [];
  tuneGcForBufferTraffic(execArgv, (flags) => set.push(flags));
  expect(set).toEqual(expected);
});
