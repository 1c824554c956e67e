import { z } from 'zod';

/**
 * The ISO 8601 times EverMemOS's clients send (message create_time, conversation created_at,
 * search and list start_time/end_time): a calendar date, optionally a time to the minute, second
 * or fraction (up to nine digits) after `T` or a space, and a zone (`Z`, or an offset `+08:00` or
 * `+0800`; not after a date alone). Without a zone it is UTC. One pattern, so the document
 * says exactly what is accepted: the date must exist (no 31 April, 29 February only in a leap
 * year) and hours run 00-23, as Python's datetime (EverMemOS's own parser) reads them, where
 * JavaScript's Date would roll 2026-02-31 over into March.
 */
// 1000 to 9999: PostgreSQL has no year 0, and an offset could carry year 1 back into it
const YEAR = '[1-9][0-9]{3}';
const LEAP_YEAR = '(?:[1-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00)';
const DAY_OF_MONTH = `(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))`;
const DATE = `(?:${YEAR}-${DAY_OF_MONTH}|${LEAP_YEAR}-02-29)`;
const TIME = '(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,9})?)?';
const OFFSET = '[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9]';

export const ISO_INSTANT_PATTERN = new RegExp(`^${DATE}(?:[Tt ]${TIME}(?:[Zz]|${OFFSET})?)?$`);

const RULE = 'must be an ISO 8601 date-time';

/** An instant as EverMemOS's requests carry it (see ISO_INSTANT_PATTERN); read with parseCreateTime. */
export const IsoInstant = z.string().regex(ISO_INSTANT_PATTERN, { message: RULE });
