// Original file: protos/tide/v1/broker.proto

import type { FetchPosition__Input as _tide_v1_FetchPosition__Input, FetchPosition as _tide_v1_FetchPosition } from '../../tide/v1/FetchPosition';
import type { RecordFormat__Input as _tide_v1_RecordFormat__Input, RecordFormat as _tide_v1_RecordFormat } from '../../tide/v1/RecordFormat';
import type { IsolationLevel__Input as _tide_v1_IsolationLevel__Input, IsolationLevel as _tide_v1_IsolationLevel } from '../../tide/v1/IsolationLevel';

export interface FetchStreamRequest__Input {
  'positions'?: (_tide_v1_FetchPosition__Input)[];
  'max_bytes'?: (number);
  'format'?: (_tide_v1_RecordFormat__Input);
  'isolation'?: (_tide_v1_IsolationLevel__Input);
}

export interface FetchStreamRequest {
  'positions': (_tide_v1_FetchPosition)[];
  'max_bytes': (number);
  'format': (_tide_v1_RecordFormat);
  'isolation': (_tide_v1_IsolationLevel);
}
