import type { ConsumerRecord } from '../../../client';
import { CliFailure, UsageError } from '../../../cli/common';
import { compileFormat, decodeInput, jsonField, recordToJson } from '../../../cli/record-format';
import { parseLine } from '../../../cli/commands/produce';
import { parseStartOffset, textFormat } from '../../../cli/commands/consume';
import { parseDuration, parseTopicSpec } from '../../../cli/commands/groups';

const enc = { key: 'utf8', value: 'utf8', nullText: 'null' } as const;
const record: ConsumerRecord = {
  topic: 'orders',
  partition: 2,
  offset: 41,
  timestampMs: 1_700_000_000_000,
  key: Buffer.from('k1'),
  value: Buffer.from([0xff, 0xfe, 0x41]),
  headers: [
    { key: 'a', value: Buffer.from('1') },
    { key: 'n', value: null },
  ],
};

describe('decodeInput', () => {
  test.each([
    ['aGVsbG8=', 'base64', 'hello'],
    ['', 'base64', ''],
    ['68656c6c6f', 'hex', 'hello'],
    ['HeLLo', 'utf8', 'HeLLo'],
  ] as const)('%j as %s', (text, encoding, expected) => {
    expect(decodeInput(text, encoding, 'x').toString()).toBe(expected);
  });

  test.each([
    ['aGVsbG8', 'base64'],
    ['a b=', 'base64'],
    ['abc', 'hex'],
    ['zz', 'hex'],
  ] as const)('%j is not valid %s: a usage error naming what', (text, encoding) => {
    expect(() => decodeInput(text, encoding, 'the value on line 3')).toThrow(
      new RegExp(`the value on line 3 is not valid ${encoding}`),
    );
    expect(() => decodeInput(text, encoding, 'v')).toThrow(UsageError);
  });
});

describe('format strings', () => {
  test('every field, escapes and %%; utf8 writes the bytes as they are', () => {
    const out = compileFormat('%t %p %o %T %k %K %S %h %%\\t%s\\n', enc)(record);
    const text = 'orders 2 41 1700000000000 k1 2 3 a=1,n=null %\t';
    expect(out.equals(Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xfe, 0x41, 0x0a])]))).toBe(true);
  });

  test('base64 and hex encodings, null key', () => {
    const f = compileFormat('%k|%s', { key: 'hex', value: 'base64', nullText: '-' });
    expect(f({ ...record, key: null }).toString()).toBe(
      `-|${Buffer.from([0xff, 0xfe, 0x41]).toString('base64')}`,
    );
    expect(compileFormat('%k', { ...enc, key: 'hex' })(record).toString()).toBe('6b31');
  });

  test.each(['%x', '%', 'a\\q'])('%j is refused', (format) => {
    expect(() => compileFormat(format, enc)).toThrow(UsageError);
  });

  test('--print-* flags build a text format', () => {
    const opts = { printPartition: true, printOffset: true, printKey: true, keySeparator: '|' };
    expect(textFormat(opts as Parameters<typeof textFormat>[0])).toBe('%p|%o|%k|%s\\n');
  });
});

describe('JSON', () => {
  test('bytes that are not UTF-8 become base64, and the object says so', () => {
    expect(jsonField(Buffer.from([0xff]), 'utf8')).toEqual({ text: '/w==', encoding: 'base64' });
    const json = JSON.parse(recordToJson(record, enc));
    expect(json).toMatchObject({ key: 'k1', valueEncoding: 'base64', headers: { a: '1', n: null } });
    expect(Buffer.from(json.value, 'base64')).toEqual(record.value);
  });
});

describe('produce lines', () => {
  const base = { keyEncoding: 'utf8', valueEncoding: 'utf8' } as const;
  test('key<SEP>value, and a line without SEP refused unless null keys are allowed', () => {
    expect(parseLine('k:v:w', 1, { ...base, keySeparator: ':' })).toEqual({
      key: Buffer.from('k'),
      value: Buffer.from('v:w'),
    });
    expect(() => parseLine('nokey', 7, { ...base, keySeparator: ':' })).toThrow(
      /line 7 has no key separator/,
    );
    expect(parseLine('nokey', 7, { ...base, keySeparator: ':', allowNullKey: true })).toEqual({
      key: null,
      value: Buffer.from('nokey'),
    });
  });

  test('encodings apply to key and value separately', () => {
    expect(
      parseLine('6b:dg==', 1, { keySeparator: ':', keyEncoding: 'hex', valueEncoding: 'base64' }),
    ).toEqual({ key: Buffer.from('k'), value: Buffer.from('v') });
  });
});

describe('option parsers', () => {
  test.each([
    ['12', { kind: 'absolute', offset: 12 }],
    ['-10', { kind: 'fromEnd', count: 10 }],
    ['end', { kind: 'end' }],
    ['beginning', { kind: 'beginning' }],
  ])('--offset %s', (text, expected) => {
    expect(parseStartOffset(text)).toEqual(expected);
  });

  test.each([
    ['PT1H', 3_600_000],
    ['PT30M', 1_800_000],
    ['P1D', 86_400_000],
    ['P1DT12H', 129_600_000],
    ['PT0.5S', 500],
  ])('duration %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each(['1h', 'P', 'PT', 'P1H'])('duration %j is refused', (text) => {
    expect(() => parseDuration(text)).toThrow(/ISO-8601 duration/);
  });

  test('--topic t and t:0,2', () => {
    expect(parseTopicSpec('t')).toEqual({ topic: 't' });
    expect(parseTopicSpec('t.x:0,2')).toEqual({ topic: 't.x', partitions: [0, 2] });
    expect(() => parseTopicSpec('t:a')).toThrow(UsageError);
  });

  test('a runtime failure is not a usage error', () => {
    expect(new CliFailure('x')).not.toBeInstanceOf(UsageError);
  });
});
