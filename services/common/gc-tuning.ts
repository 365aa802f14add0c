/**
 * The V8 garbage-collector setting Tide's services run with: the old generation may grow to 4×
 * its live size between full collections (`--heap-growing-percent=300`, V8's own upper bound),
 * instead of the factor V8 derives from the JavaScript allocation rate alone.
 *
 * Why: produce and fetch traffic passes through 1 MiB Buffers (read buffers, and grpc-js copies
 * every message once more), whose memory lives outside the JavaScript heap. V8 counts that memory,
 * allocated since the last full collection, against the old generation's limit, but sizes the
 * limit from the JavaScript heap's own allocation rate, which is low here. Once one full
 * collection happens while data flows, the new limit is only a few MB above a ~20 MB heap: the
 * next collection starts after a few MB of Buffers, and the process falls into a full collection
 * every 50–200 ms that frees no JavaScript memory. A broker in that state used 3× the CPU to serve
 * the same fetches, at random (in about half of the runs, plain text or TLS alike), and a
 * consumer ran two full collections per 30 MB read. With the larger factor: no such broker state
 * in any run, and about 30 % less consumer CPU (docs/performance.md, "V8 heap growing").
 *
 * The cost: up to 3× the live heap of garbage (JavaScript or Buffers) may wait for a collection.
 * V8 still caps the limit halfway to the maximum heap size.
 */
import * as v8 from 'v8';

export const HEAP_GROWING_PERCENT = 300;
const FLAG = '--heap-growing-percent';

/**
 * Sets the growing factor unless node was started with its own `--heap-growing-percent`
 * (deploy/tuned-node.sh passes it; an operator may pass another). V8 reads it at each full
 * collection, so setting it at start-up applies from the first one.
 */
export function tuneGcForBufferTraffic(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): void {
  if (execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`))) return;
  setFlags(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}
