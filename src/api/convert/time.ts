import { type Timestamp, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';

export const ts = (d: Date): Timestamp => timestampFromDate(d);
export const optDate = (t: Timestamp | undefined) => (t ? timestampDate(t) : undefined);

/** A record's creation and last change as a message's creation_date and change_date. */
export const datesOut = (r: { createdAt: Date; changedAt: Date }) => ({
  creationDate: ts(r.createdAt),
  changeDate: ts(r.changedAt),
});
