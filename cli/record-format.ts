/**
 * How `tide produce` reads and `tide consume` prints keys and values: byte encodings (utf8,
 * base64, hex) and kcat-style format strings.
 *
 * Format strings (`tide consume --format '%t %p %o %k %s\n'`), as kcat's `-f`:
 *   %t topic   %p partition   %o offset   %T timestamp (ms)   %k key   %s value
 *   %K key length (-1 for null)   %S value length (-1 for null)   %h headers (k=v,k=v)   %% a '%'
 *   \n newline   \t tab   \r carriage return   \\ a backslash
 * Keys, values and header values are written in the chosen encoding; utf8 writes the bytes as they
 * are (binary-safe, like kcat). A null key or value prints as the --null text (default empty).
 */
import { isUtf8 } from 'buffer';
import type { ConsumerRecord } from '../client';
import { UsageError } from './common';

export const ENCODINGS = ['utf8', 'base64', 'hex'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Turns input text in `encoding` into bytes; UsageError naming `what` when it is not valid. */
export function decodeInput(text: string, encoding: Encoding, what: string): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'base64':
      if (!BASE64.test(text)) throw new UsageError(`${what} is not valid base64: ${preview(text)}`);
      return Buffer.from(text, 'base64');
    case 'hex':
      if (!HEX.test(text))
        throw new UsageError(`${what} is not valid hex (pairs of 0-9a-f): ${preview(text)}`);
      return Buffer.from(text, 'hex');
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/** Bytes as output in `encoding`: utf8 keeps the bytes as they are. */
export function encodeOutput(bytes: Buffer, encoding: Encoding): Buffer {
  return encoding === 'utf8' ? bytes : Buffer.from(bytes.toString(encoding), 'latin1');
}

/**
 * A JSON field for bytes: the text in `encoding`, or base64 when utf8 was asked for and the bytes
 * are not UTF-8 (JSON strings cannot hold them; the object's `*Encoding` field says so).
 */
export function jsonField(
  bytes: Buffer | null,
  encoding: Encoding,
): { text: string | null; encoding: Encoding } {
  if (bytes === null) return { text: null, encoding };
  if (encoding === 'utf8' && !isUtf8(bytes)) return { text: bytes.toString('base64'), encoding: 'base64' };
  return { text: bytes.toString(encoding), encoding };
}

export interface OutputEncodings {
  key: Encoding;
  value: Encoding;
  /** Printed for a null key or value. */
  nullText: string;
}

/** A record as one JSON object: key and value in their encodings, headers as an object. */
export function recordToJson(record: ConsumerRecord, enc: OutputEncodings): string {
  const key = jsonField(record.key, enc.key);
  const value = jsonField(record.value, enc.value);
  const out: Record<string, unknown> = {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestampMs,
    key: key.text,
    value: value.text,
    headers: Object.fromEntries(record.headers.map((h) => [h.key, jsonField(h.value, enc.value).text])),
  };
  if (key.encoding !== 'utf8') out.keyEncoding = key.encoding;
  if (value.encoding !== 'utf8') out.valueEncoding = value.encoding;
  return JSON.stringify(out);
}

type Part = string | ((record: ConsumerRecord, enc: OutputEncodings) => Buffer | string);

const bytesOrNull = (b: Buffer | null, e: Encoding, enc: OutputEncodings) =>
  b === null ? enc.nullText : encodeOutput(b, e);

const FIELDS: Record<string, Part> = {
  t: (r) => r.topic,
  p: (r) => String(r.partition),
  o: (r) => String(r.offset),
  T: (r) => String(r.timestampMs),
  k: (r, enc) => bytesOrNull(r.key, enc.key, enc),
  s: (r, enc) => bytesOrNull(r.value, enc.value, enc),
  K: (r) => String(r.key === null ? -1 : r.key.length),
  S: (r) => String(r.value === null ? -1 : r.value.length),
  h: (r, enc) =>
    Buffer.concat(
      r.headers.flatMap((h, i) => [
        Buffer.from(`${i > 0 ? ',' : ''}${h.key}=`),
        h.value === null ? Buffer.from(enc.nullText) : encodeOutput(h.value, enc.value),
      ]),
    ),
  '%': '%',
};

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\' };

/** A compiled format string: call it with a record to get the bytes to write. */
export type RecordFormatter = (record: ConsumerRecord) => Buffer;

/** Compiles a kcat-style format string; UsageError on an unknown %x. */
export function compileFormat(format: string, enc: OutputEncodings): RecordFormatter {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c === '%' || c === '\\') {
      const next = format[i + 1];
      const table: Record<string, Part> = c === '%' ? FIELDS : ESCAPES;
      if (next === undefined || !(next in table))
        throw new UsageError(
          `format: unknown ${c}${next ?? ''} at position ${i} (use %t %p %o %T %k %s %K %S %h %%, \\n \\t)`,
        );
      const part = table[next];
      if (typeof part === 'string') literal += part;
      else {
        if (literal) parts.push(literal);
        literal = '';
        parts.push(part);
      }
      i++;
    } else literal += c;
  }
  if (literal) parts.push(literal);
  return (record) =>
    Buffer.concat(
      parts.map((p) => {
        const out = typeof p === 'string' ? p : p(record, enc);
        return typeof out === 'string' ? Buffer.from(out) : out;
      }),
    );
}
