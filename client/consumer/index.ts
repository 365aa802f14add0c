/** The consumer (consumer.ts) and what its callers need; the parts are described there. */
export {
  Consumer,
  DEFAULT_CONSUMER_MAX_BUFFERED_BYTES,
  DEFAULT_CONSUMER_MAX_BYTES,
  type AutoOffsetReset,
  type ConsumerOptions,
  type FetchOptions,
  type FetchResult,
  type IsolationLevel,
} from './consumer';
