/**
 * NATS JetStream as a benchmark target: one nats-server (R1) or three clustered on loopback (R3),
 * file storage, each with its own temp store dir. One Tide partition = one JetStream stream (the
 * unit of ordering, storage and replication), capturing subject `<name>.p<i>`.
 *
 * Publishing uses the Node client's core connection with a reply inbox per message and one
 * wildcard subscription for the acks — the async-publish pattern of nats.go's PublishAsync and
 * `nats bench --js` — rather than `js.publish()`, a request with its own promise and timer per
 * message. Each ack is checked for an error.
 */
import { connect } from '@nats-io/transport-node';
// nats-core is the dependency of both packages above; TypeScript's node10 resolution cannot see
// transport-node's re-export of it (a package.json "exports" subpath), so name it directly.
import { createInbox, type NatsConnection } from '@nats-io/nats-core';
import {
  jetstream,
  jetstreamManager,
  StorageType,
  DeliverPolicy,
  type JetStreamManager,
} from '@nats-io/jetstream';
import * as fs from 'fs';
import * as path from 'path';
import { freePorts } from '../../../test/harness/etcd';
import { makeTempDir, waitFor } from '../../../test/harness/processes';
import { spawnServer, type ServerProcess } from '../server-process';
import { InflightWindow } from '../inflight-window';
import type { LatencyPath, Target } from '../types';

/** @nats-io/transport-node + @nats-io/jetstream 3.4.0, publishing asynchronously (see above). */
export const NATS_CLIENT = 'nats.js 3.4 async publish';

/** The nats-server config of node `index` of `nodes` (file store in `storeDir`). */
export function natsConfig(
  index: number,
  clientPorts: number[],
  routePorts: number[],
  storeDir: string,
): string {
  const lines = [
    `server_name: n${index}`,
    'listen: 127.0.0.1:' + clientPorts[index],
    'max_payload: 8MB',
    `jetstream { store_dir: "${storeDir}", max_memory_store: 1GB, max_file_store: 64GB }`,
  ];
  if (clientPorts.length > 1) {
    const routes = routePorts.filter((_, i) => i !== index).map((p) => `nats-route://127.0.0.1:${p}`);
    lines.push(
      `cluster { name: bench, listen: 127.0.0.1:${routePorts[index]}, routes: [${routes.join(', ')}] }`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Starts `nodes` nats-servers (1 or 3) and connects; `nodes` is also the streams' replica count. */
export async function startNatsTarget(nodes: 1 | 3): Promise<Target> {
  const ports = await freePorts(nodes * 2);
  const clientPorts = ports.slice(0, nodes);
  const routePorts = ports.slice(nodes);
  const servers: ServerProcess[] = [];
  let nc: NatsConnection | undefined;
  let jsm: JetStreamManager | undefined;
  const stopAll = async () => {
    await nc?.close().catch(() => undefined);
    await Promise.all(servers.map((s) => s.stop()));
  };
  try {
    for (let i = 0; i < nodes; i++) {
      const dir = makeTempDir('nats-peers-');
      const configFile = path.join(dir, 'nats.conf');
      fs.writeFileSync(configFile, natsConfig(i, clientPorts, routePorts, path.join(dir, 'store')));
      servers.push(
        await spawnServer({
          name: `nats-server n${i}`,
          command: 'nats-server',
          args: ['-c', configFile],
          readyPattern: /Server is ready/,
          dataDir: dir,
        }),
      );
    }
    nc = await connect({ servers: clientPorts.map((p) => `127.0.0.1:${p}`), maxReconnectAttempts: 10 });
    // checkAPI off: the manager's own probe would time out (not retry) while a cluster elects.
    jsm = await jetstreamManager(nc, { checkAPI: false });
    // A cluster answers JetStream requests only once its meta group has a leader.
    const manager = jsm;
    await waitFor(() => manager.getAccountInfo().then(() => true), {
      timeoutMs: 30_000,
      what: 'the JetStream meta leader',
    });
  } catch (err) {
    await stopAll();
    throw err;
  }
  // Both set in the try block, which rethrows on failure.
  const conn = nc as NatsConnection;
  const manager = jsm as JetStreamManager;
  const js = jetstream(conn);
  let closed = false;

  /** Async publishing: one reply inbox per message, one wildcard subscription for the acks. */
  const publisher = () => {
    const inbox = createInbox();
    let failure: Error | undefined;
    const window = new InflightWindow();
    /** Per-message ack callbacks, only for the latency path (keyed by the reply's sequence). */
    const onAck = new Map<number, () => void>();
    const sub = conn.subscribe(`${inbox}.*`, {
      callback: (err, msg) => {
        if (err) failure ??= err;
        // A PubAck is {"stream":..,"seq":..}; a failure is {"error":{..}} (or an empty status).
        else if (msg.data.length === 0 || Buffer.from(msg.data).includes('"error"'))
          failure ??= new Error(`JetStream refused a publish: ${msg.string()}`);
        window.release(1);
        if (onAck.size > 0) {
          const seq = Number(msg.subject.slice(inbox.length + 1));
          onAck.get(seq)?.();
          onAck.delete(seq);
        }
      },
    });
    let seq = 0;
    return {
      window,
      failure: () => failure,
      publish: (subject: string, value: Buffer, acked?: () => void): void => {
        if (acked) onAck.set(seq, acked);
        conn.publish(subject, value, { reply: `${inbox}.${seq++}` });
      },
      close: () => sub.unsubscribe(),
    };
  };

  return {
    system: 'NATS JetStream',
    config: nodes === 1 ? '1 server, R1, file storage' : '3 servers, R3, file storage',
    // nats-server 2.9 writes each message to the OS before the ack and fsyncs every 2 minutes
    // (its sync_interval option, with `always`, arrived in 2.10).
    durability: 'fsync-periodic',
    replicas: nodes,
    client: NATS_CLIENT,
    endpoints: clientPorts.map((p) => `127.0.0.1:${p}`),
    serverPids: () => servers.map((s) => s.pid),
    createStream: async (name, partitions) => {
      for (let p = 0; p < partitions; p++) {
        const config = {
          name: `${name}-p${p}`,
          subjects: [`${name}.p${p}`],
          storage: StorageType.File,
          num_replicas: nodes,
        };
        // A young cluster may time out placing an R3 stream while its peers are still joining the
        // meta group; adding the same config again is idempotent, so retry (bounded).
        await waitFor(() => manager.streams.add(config).then(() => true), {
          timeoutMs: 60_000,
          intervalMs: 500,
          what: `stream ${config.name}`,
        });
      }
    },
    produce: async (name, values, count, partitions, inflight) => {
      const pub = publisher();
      const subjects = Array.from({ length: partitions }, (_, p) => `${name}.p${p}`);
      try {
        for (let i = 0; i < count; i++) {
          const wait = pub.window.acquire(1, inflight);
          if (wait) await wait;
          pub.publish(subjects[i % partitions], values[i % values.length]);
          const failure = pub.failure();
          if (failure) throw failure;
        }
        await pub.window.drained();
        const failure = pub.failure();
        if (failure) throw failure;
      } finally {
        pub.close();
      }
    },
    consume: async (name, count, partitions) => {
      let consumed = 0;
      for (let p = 0; p < partitions && consumed < count; p++) {
        const info = await manager.streams.info(`${name}-p${p}`);
        const want = Math.min(info.state.messages, count - consumed);
        if (want === 0) continue; // an empty stream would leave the loop below waiting forever
        const consumer = await js.consumers.get(`${name}-p${p}`);
        const messages = await consumer.consume({ max_messages: 10_000 });
        let read = 0;
        for await (const _ of messages) {
          if (++read >= want) break;
        }
        await messages.close();
        consumed += read;
      }
      return consumed;
    },
    openLatencyPath: async (name, onValue): Promise<LatencyPath> => {
      const consumer = await js.consumers.get(`${name}-p0`, { deliver_policy: DeliverPolicy.New });
      const messages = await consumer.consume({
        max_messages: 1_000,
        callback: (m) => onValue(Buffer.from(m.data)),
      });
      const pub = publisher();
      return {
        send: (value) =>
          new Promise<void>((resolve) => {
            void pub.window.acquire(1, Infinity); // never waits: the rate paces this path
            pub.publish(`${name}.p0`, value, resolve);
          }),
        close: async () => {
          pub.close();
          await messages.close();
        },
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await stopAll();
    },
  };
}
