/**
 * Kafka RecordBatch v2 records: the header layout, batch encoding and decoding, compression codecs
 * and zigzag varints. Import from here rather than from the individual files.
 */
export * from './layout';
export * from './varint';
export * from './compression';
export * from './codec';
export * from './framing';
export * from './record-section';
export * from './checked-batches';
export * from './control';
