/**
 * The value of `/tide/<cluster>/controller`: who the active controller is and where brokers reach
 * it. It extends keys.ts's ControllerRecord with the controller's gRPC address; decoding accepts
 * records without an address (written by an older version), and older readers ignore the extra
 * fields, so both directions stay compatible.
 *
 * The controller epoch is the key's createRevision, known only after the creating transaction; the
 * value's `epoch` field repeats it once the elected controller has rewritten its record (0 until
 * then). Readers take the epoch from createRevision, never from the value.
 */
import { AssertionError } from '../assert';
import { decodeControllerRecord, encodeControllerRecord, type ControllerRecord } from '../metadata/keys';
import type { KeyValue } from '../metadata/store';

/** The active controller as brokers see it. */
export interface ActiveControllerRecord extends ControllerRecord {
  /** Host brokers connect to; absent in records of older versions. */
  host?: string;
  /** gRPC port; absent in records of older versions. */
  port?: number;
}

/** The active controller with its epoch, read from the key. */
export interface ActiveController {
  controllerId: number;
  /** The key's createRevision: the controller epoch. */
  epoch: number;
  /** host:port, when the record carries an address. */
  address?: string;
  /** The lease holding the key. */
  lease?: string;
}

export function decodeActiveControllerRecord(value: Buffer | string, key: string): ActiveControllerRecord {
  const base = decodeControllerRecord(value, key);
  const fields = JSON.parse(typeof value === 'string' ? value : value.toString('utf8')) as Record<
    string,
    unknown
  >;
  const record: ActiveControllerRecord = { ...base };
  if (typeof fields.host === 'string' && /^\S+$/.test(fields.host)) record.host = fields.host;
  const port = fields.port;
  if (typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535) record.port = port;
  return record;
}

export function encodeActiveControllerRecord(record: ActiveControllerRecord): string {
  // The base encoder checks controllerId and epoch; the address is checked here.
  encodeControllerRecord(record);
  const { controllerId, epoch, host, port } = record;
  if ((host === undefined) !== (port === undefined)) throw new AssertionError('host and port go together');
  const text = JSON.stringify(
    host === undefined ? { controllerId, epoch } : { controllerId, epoch, host, port },
  );
  const back = decodeActiveControllerRecord(text, 'controller record');
  if (back.host !== host || back.port !== port)
    throw new AssertionError(`controller address ${host}:${port} is not a valid host and port`);
  return text;
}

/** The active controller from the key's stored value; undefined when the value is unreadable. */
export function activeControllerOf(kv: KeyValue): ActiveController | undefined {
  try {
    const record = decodeActiveControllerRecord(kv.value, kv.key);
    return {
      controllerId: record.controllerId,
      epoch: kv.createRevision,
      ...(record.host !== undefined && record.port !== undefined
        ? { address: `${record.host}:${record.port}` }
        : {}),
      ...(kv.lease !== undefined ? { lease: kv.lease } : {}),
    };
  } catch {
    return undefined;
  }
}
