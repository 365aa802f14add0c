/**
 * The producer's identity for idempotence: a producer id and epoch from InitProducerId, obtained
 * once (concurrent callers share the request) before the first record is accepted. Each
 * partition starts with this identity at sequence 0; a partition whose sequence broke (a
 * non-retriable error) asks for a `fresh()` one and starts over (the sender does that).
 */
import type { Identity } from './state';

export class ProducerIdentity {
  private identity: Identity | undefined;
  private request: Promise<Identity> | undefined;

  /** `init` runs InitProducerId (with its retries) and answers the new identity. */
  constructor(private readonly init: () => Promise<Identity>) {}

  /** The producer-wide identity; undefined until `ensure()` has resolved. */
  get current(): Identity | undefined {
    return this.identity;
  }

  /** The producer-wide identity, requesting it the first time. */
  ensure(): Promise<Identity> {
    if (this.identity) return Promise.resolve(this.identity);
    this.request ??= this.init().then(
      (identity) => {
        this.identity = identity;
        return identity;
      },
      (err: unknown) => {
        this.request = undefined;
        throw err;
      },
    );
    return this.request;
  }

  /** Replaces the producer-wide identity (a transactional producer's next epoch). */
  set(identity: Identity): void {
    this.identity = identity;
  }

  /** A new producer id and epoch (for one partition starting over); the producer-wide one stays. */
  fresh(): Promise<Identity> {
    return this.init();
  }
}
