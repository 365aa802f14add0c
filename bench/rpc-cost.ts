/**
 * `npm run bench:rpc [-- --calls N --rounds N]`: what one internal call costs as a grpc-js unary
 * call against the same call carried on an open stream (services/common/grpc/stream-calls.ts),
 * both ends in this process as in `tide dev`, over loopback. The request is a one-partition
 * WriteTxnMarkersRequest with the internal-token header, answered at once by a handler that does
 * no work, so the figures are the RPC machinery alone: CPU microseconds of this process and wall
 * microseconds per call, calls one after the other (a transaction's legs are a chain).
 */
import * as grpc from '@grpc/grpc-js';
import { systemClock } from '../services/common/clock';
import { silentLogger } from '../services/common/logger';
import { INTERNAL_TOKEN_HEADER } from '../services/common/grpc/routing-headers';
import { StreamCallsClient, StreamCallsServer } from '../services/common/grpc/stream-calls';
import { txnMarkersProto } from '../services/common/grpc/txn-markers-proto';
import type { WriteTxnMarkersRequest } from '../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import type { WriteTxnMarkersRequest__Input } from '../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import type {
  WriteTxnMarkersResponse,
  WriteTxnMarkersResponse__Input,
} from '../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersResponse';

interface Options {
  calls: number;
  rounds: number;
}

function parse(argv: string[]): Options {
  const options: Options = { calls: 3_000, rounds: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${argv[i]} needs a positive integer`);
    if (argv[i] === '--calls') options.calls = value;
    else if (argv[i] === '--rounds') options.rounds = value;
    else throw new Error(`unknown option ${argv[i]} (--calls N --rounds N)`);
  }
  return options;
}

const request: WriteTxnMarkersRequest__Input = {
  markers: [
    {
      producer_id: 4_711,
      producer_epoch: 3,
      coordinator_epoch: 1,
      result: 'TXN_RESULT_COMMIT',
      partitions: [{ topic: 'payments', partition: 0 }],
    },
  ],
  timeout_ms: 15_000,
};
const answer = (req: WriteTxnMarkersRequest): WriteTxnMarkersResponse__Input => ({
  results: req.markers.flatMap((m) => m.partitions.map((p) => ({ producer_id: m.producer_id, ...p }))),
});

async function measure(
  label: string,
  calls: number,
  call: () => Promise<unknown>,
): Promise<{ label: string; cpuUs: number; wallUs: number }> {
  for (let i = 0; i < Math.min(500, calls); i++) await call();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await call();
  const used = process.cpuUsage(cpu);
  return {
    label,
    cpuUs: (used.user + used.system) / calls,
    wallUs: Number(process.hrtime.bigint() - started) / 1e3 / calls,
  };
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const streams = new StreamCallsServer<WriteTxnMarkersRequest, WriteTxnMarkersResponse__Input>({
    handle: async (req) => answer(req),
    method: 'WriteTxnMarkers',
    logger: silentLogger(),
  });
  const server = new grpc.Server();
  server.addService(txnMarkersProto().TxnMarkers.service, {
    WriteTxnMarkers: (
      call: grpc.ServerUnaryCall<WriteTxnMarkersRequest, WriteTxnMarkersResponse__Input>,
      callback: grpc.sendUnaryData<WriteTxnMarkersResponse__Input>,
    ) => callback(null, answer(call.request)),
    WriteTxnMarkersStream: streams.handler,
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const client = new (txnMarkersProto().TxnMarkers)(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const metadata = () => {
    const m = new grpc.Metadata();
    m.set(INTERNAL_TOKEN_HEADER, 'bench-internal-token');
    return m;
  };
  const unary = (req: WriteTxnMarkersRequest__Input, timeoutMs: number) =>
    new Promise<WriteTxnMarkersResponse>((resolve, reject) =>
      client.WriteTxnMarkers(req, metadata(), { deadline: new Date(Date.now() + timeoutMs) }, (err, res) =>
        err ? reject(err) : resolve(res!),
      ),
    );
  const onStream = new StreamCallsClient<WriteTxnMarkersRequest__Input, WriteTxnMarkersResponse>({
    open: () => client.WriteTxnMarkersStream(metadata()),
    unary,
    clock: systemClock,
    describe: 'WriteTxnMarkers (bench)',
  });

  console.log(
    `One call at a time, ${options.calls} calls per round, both ends in this process (pid ${process.pid}), best of ${options.rounds} rounds:`,
  );
  const best = new Map<string, { cpuUs: number; wallUs: number }>();
  for (let round = 1; round <= options.rounds; round++) {
    for (const result of [
      await measure('unary WriteTxnMarkers', options.calls, () => unary(request, 15_000)),
      await measure('WriteTxnMarkersStream', options.calls, () => onStream.call(request, 15_000)),
    ]) {
      console.log(
        `round ${round} ${result.label}: ${result.cpuUs.toFixed(1)} µs CPU, ${result.wallUs.toFixed(1)} µs wall per call`,
      );
      const prev = best.get(result.label);
      if (!prev || result.cpuUs < prev.cpuUs) best.set(result.label, result);
    }
  }
  const u = best.get('unary WriteTxnMarkers')!;
  const s = best.get('WriteTxnMarkersStream')!;
  console.log(
    `\nbest: unary ${u.cpuUs.toFixed(1)} µs CPU / ${u.wallUs.toFixed(1)} µs wall; stream ${s.cpuUs.toFixed(1)} µs CPU / ${s.wallUs.toFixed(1)} µs wall; unary / stream CPU ${(u.cpuUs / s.cpuUs).toFixed(1)}x`,
  );
  onStream.close();
  client.close();
  server.forceShutdown();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
