/** Word count: lines in, a running count per word out (`word-counts`, word → count). */
import { Serdes, type StreamsBuilder } from '../../streams';

export function wordCount(b: StreamsBuilder): void {
  b.stream('text-lines', { key: Serdes.string, value: Serdes.string })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .selectKey((_k, word) => word) // re-keyed: counting repartitions through <app>-counts-repartition
    .groupByKey({ key: Serdes.string, value: Serdes.string })
    .count({ name: 'counts' })
    .toStream()
    .to('word-counts', { value: Serdes.number });
}
