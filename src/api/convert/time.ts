import { type Timestamp, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';

export const ts = (d: Date): Timestamp => timestampFromDate(d);
export const optDate = (t: Timestamp | undefined) => (t ? timestampDate(t) : undefined);
