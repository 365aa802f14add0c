/**
 * A transactional producer in its own process, driven line by line on stdin, so a test can
 * SIGSTOP it for real (a zombie: paused past its transaction timeout, then resumed) or SIGKILL it.
 * Run from dist/: `node dist/test/harness/txn-client-child.js <bootstrap> <topic> <transactionalId> <timeoutMs>`.
 *
 * stdin, one JSON command a line:  {"op":"init"} | {"op":"begin"} | {"op":"send","partition":0,"value":"v"}
 *                                  | {"op":"commit"} | {"op":"abort"} | {"op":"exit"}
 * stdout, one JSON reply a line:   {"op":..., "ok":true, ...} or {"op":..., "ok":false, "code":..., "message":...}
 * Commands run one after another; `send` replies once the record is acknowledged (or refused).
 */
import * as readline from 'readline';
import { Tide } from '../../client';

interface Command {
  op: 'init' | 'begin' | 'send' | 'commit' | 'abort' | 'exit';
  partition?: number;
  value?: string;
}

async function main(): Promise<void> {
  const [bootstrap, topic, transactionalId, timeoutMs] = process.argv.slice(2);
  if (!bootstrap || !topic || !transactionalId)
    throw new Error('usage: txn-client-child <bootstrap> <topic> <transactionalId> [timeoutMs]');
  const tide = new Tide({ bootstrap: bootstrap.split(','), clientId: transactionalId });
  const producer = tide.producer({
    transactionalId,
    transactionTimeoutMs: timeoutMs ? Number(timeoutMs) : undefined,
    lingerMs: 0,
  });
  const reply = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const command = JSON.parse(line) as Command;
    try {
      switch (command.op) {
        case 'init':
          await producer.initTransactions();
          reply({ op: 'init', ok: true, ...producer.producerIdentity });
          break;
        case 'begin':
          producer.beginTransaction();
          reply({ op: 'begin', ok: true });
          break;
        case 'send': {
          const m = await producer.send(topic, { value: command.value! }, { partition: command.partition! });
          reply({ op: 'send', ok: true, value: command.value, offset: m.offset });
          break;
        }
        case 'commit':
          await producer.commitTransaction();
          reply({ op: 'commit', ok: true, ...producer.producerIdentity });
          break;
        case 'abort':
          await producer.abortTransaction();
          reply({ op: 'abort', ok: true });
          break;
        case 'exit':
          await producer.close();
          await tide.close();
          reply({ op: 'exit', ok: true });
          process.exit(0);
      }
    } catch (err) {
      const e = err as { code?: string; message?: string };
      reply({ op: command.op, ok: false, value: command.value, code: e.code, message: e.message });
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
