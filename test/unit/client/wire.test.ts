import { tideProto } from '../../../services/common/grpc/proto';
import { encodeProduceBody, encodeProduceRequest } from '../../../client/net/wire';

describe('encodeProduceRequest', () => {
  const decode = (buf: Buffer) => tideProto().Broker.service.ProduceStream.requestDeserialize(buf);

  test.each([
    [1, 't', 0, 'all', 30_000, 10],
    [300, 'topic-ü', 7, 'leader', 1, 200],
    [2 ** 40 + 3, 'x'.repeat(200), 123_456, 'none', 0, 0],
  ] as const)(
    'matches the generated decoder (correlation %d, topic %s)',
    (correlationId, topic, partition, acks, timeoutMs, size) => {
      const recordBatches = Buffer.alloc(size, 0xab);
      const decoded = decode(
        encodeProduceRequest({ correlationId, topic, partition, acks, timeoutMs, recordBatches }),
      );
      expect(decoded.correlation_id).toBe(correlationId);
      expect(decoded.topic).toBe(topic);
      expect(decoded.partition).toBe(partition);
      expect(decoded.acks).toBe({ none: 'ACKS_NONE', leader: 'ACKS_LEADER', all: 'ACKS_ALL' }[acks]);
      expect(decoded.timeout_ms).toBe(timeoutMs);
      expect(Buffer.compare(decoded.record_batches, recordBatches)).toBe(0);
      expect(decoded.records).toEqual([]);
    },
  );

  test("a transactional producer's request carries its transactional id (field 9)", () => {
    const recordBatches = Buffer.alloc(50, 0xcd);
    for (const transactionalId of ['payments-writer', 'ü'.repeat(100)]) {
      const decoded = decode(
        encodeProduceRequest({
          correlationId: 9,
          topic: 'out',
          partition: 1,
          acks: 'all',
          timeoutMs: 30_000,
          recordBatches,
          transactionalId,
        }),
      );
      expect(decoded).toMatchObject({
        correlation_id: 9,
        topic: 'out',
        partition: 1,
        transactional_id: transactionalId,
      });
      expect(Buffer.compare(decoded.record_batches, recordBatches)).toBe(0);
    }
    const plain = decode(
      encodeProduceRequest({
        correlationId: 1,
        topic: 't',
        partition: 0,
        acks: 'all',
        timeoutMs: 1,
        recordBatches,
      }),
    );
    expect(plain.transactional_id).toBe('');
  });

  test('a pre-encoded request is resent with a new correlation id each time', () => {
    const recordBatches = Buffer.from('batch bytes');
    const pool = { acquire: (size: number) => Buffer.alloc(size + 100, 0xee) }; // a larger, dirty buffer
    const encoded = encodeProduceBody(
      { topic: 'events', partition: 3, acks: 'all', timeoutMs: 30_000, recordBatches },
      pool,
    );
    for (const id of [1, 127, 128, 2 ** 35, 5]) {
      const decoded = decode(encoded.withCorrelationId(id));
      expect(decoded).toMatchObject({
        correlation_id: id,
        topic: 'events',
        partition: 3,
        acks: 'ACKS_ALL',
        timeout_ms: 30_000,
      });
      expect(decoded.record_batches.toString()).toBe('batch bytes');
    }
  });
});
