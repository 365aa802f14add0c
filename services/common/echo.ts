/**
 * Values from a request, as error messages may show them. An error's message travels in the
 * gRPC status (grpc-message), whose metadata clients cap (8 KiB by default in grpc-js): a 64 KiB
 * topic name echoed whole turns a clear INVALID_TOPIC into "received initial metadata size exceeds
 * limit". Every value taken from a request goes through `echo`, and the API edge bounds the
 * whole message as a backstop (`boundMessage`).
 */

/** How many characters of a request value an error message shows. */
export const ECHO_MAX_CHARS = 200;

/** Longest error message sent to a client; longer ones are cut (and say so). */
export const ERROR_MESSAGE_MAX_CHARS = 2_000;

/**
 * The value quoted as JSON when it has at most `maxChars` characters; otherwise its first
 * `maxChars` characters, quoted, followed by its full length: `"aaaa…" (65536 characters)`.
 */
export function echo(value: unknown, maxChars = ECHO_MAX_CHARS): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= maxChars) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, maxChars) + '…')} (${text.length} characters)`;
}

/** The message itself when short enough, else its start and how much was cut. */
export function boundMessage(message: string, maxChars = ERROR_MESSAGE_MAX_CHARS): string {
  if (message.length <= maxChars) return message;
  return `${message.slice(0, maxChars)}… (${message.length - maxChars} more characters cut)`;
}
