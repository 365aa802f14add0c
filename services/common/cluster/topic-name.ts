/**
 * Topic names, as Kafka allows them: 1 to 249 characters of [a-zA-Z0-9._-], and not "." or ".."
 * (they would name the folder itself or its parent on disk).
 *
 * Two names that differ only by '.' versus '_' (e.g. `a.b` and `a_b`) collide: Kafka refuses
 * the second one (InvalidTopicException), because its JMX metric names replace '.' with '_'.
 * Tide refuses it too (`collidingTopic`), so topics mirrored between Tide and Kafka, and Kafka
 * clients' metrics, never mix two topics up.
 */
import { TideError } from '../errors';
import { echo } from '../echo';

export const MAX_TOPIC_NAME_LENGTH = 249;

/**
 * Names only Tide's own services create (as internal topics): the public CreateTopic refuses them,
 * so no client can make a writable `__consumer_offsets` before the coordinator creates it.
 */
export const RESERVED_TOPIC_NAMES: readonly string[] = ['__consumer_offsets', '__transaction_state'];

/** Throws INTERNAL_TOPIC when `name` is reserved for an internal topic. */
export function refuseReservedName(name: string): void {
  if (RESERVED_TOPIC_NAMES.includes(name))
    throw new TideError('INTERNAL_TOPIC', `topic name ${name} is reserved for Tide's internal topic`, {
      context: { topic: name },
    });
}

const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** Throws INVALID_TOPIC, naming the rule the name breaks. */
export function validateTopicName(name: string): void {
  const fail = (why: string): never => {
    throw new TideError('INVALID_TOPIC', `invalid topic name ${echo(name)}: ${why}`, {
      context: { topic: name },
    });
  };
  if (typeof name !== 'string' || name.length === 0) fail('the name is empty');
  if (name === '.' || name === '..') fail('"." and ".." are not allowed');
  if (name.length > MAX_TOPIC_NAME_LENGTH)
    fail(`it is ${name.length} characters long; the limit is ${MAX_TOPIC_NAME_LENGTH}`);
  if (!LEGAL.test(name)) {
    const bad = [...new Set([...name].filter((c) => !LEGAL.test(c)))]
      .slice(0, 10)
      .map((c) => JSON.stringify(c))
      .join(' ');
    fail(`it contains ${bad}; only ASCII letters, digits, '.', '_' and '-' are allowed`);
  }
}

/** The name with '.' folded into '_': two names with the same folded form collide. */
export function collisionKey(name: string): string {
  return name.replace(/\./g, '_');
}

/**
 * The first existing name that collides with `name` (same name once '.' and '_' are treated as
 * equal, but not the same name), or undefined.
 */
export function collidingTopic(name: string, existing: Iterable<string>): string | undefined {
  const key = collisionKey(name);
  for (const other of existing) if (other !== name && collisionKey(other) === key) return other;
  return undefined;
}

/** Throws INVALID_TOPIC when `name` collides with one of `existing` (Kafka's rule, see above). */
export function checkTopicCollision(name: string, existing: Iterable<string>): void {
  const other = collidingTopic(name, existing);
  if (other === undefined) return;
  throw new TideError(
    'INVALID_TOPIC',
    `topic ${JSON.stringify(name)} collides with existing topic ${JSON.stringify(other)}: names that differ only by '.' and '_' collide in metric names`,
    { context: { topic: name } },
  );
}
