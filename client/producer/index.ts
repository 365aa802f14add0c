/** The producer (producer.ts) and what its callers need; the parts are described there. */
export {
  Producer,
  DEFAULT_BATCH_BYTES,
  DEFAULT_LINGER_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_PRODUCER_REQUEST_TIMEOUT_MS,
  DEFAULT_PRODUCER_RETRY,
  type ProducerOptions,
  type SendOptions,
} from './producer';
export {
  TransactionalProducer,
  type TransactionalProducerOptions,
  type TxnOffsetInput,
} from './transactional-producer';
