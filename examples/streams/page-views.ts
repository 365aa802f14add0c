/**
 * Page views per user per minute, final results only: one record per user and minute, written
 * once the minute is over (plus 10 s of grace for late views) — not an update per view.
 */
import { Serdes, Suppressed, TimeWindows, type StreamsBuilder } from '../../streams';

export interface PageView {
  user: string;
  page: string;
}

export function pageViews(b: StreamsBuilder): void {
  b.stream('page-views', { key: Serdes.string, value: Serdes.json<PageView>() })
    .selectKey((_k, view) => view.user)
    .groupByKey({ key: Serdes.string, name: 'views-by-user' })
    .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
    .count({ name: 'views-per-minute' })
    .suppress(Suppressed.untilWindowCloses(), { name: 'views-per-minute-final' })
    .toStream()
    .to('views-per-user-minute', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
}
