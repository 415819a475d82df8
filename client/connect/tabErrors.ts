import { ClientError, ProtocolError } from '../../protocol/errors/errors.js';
import { deserializeError } from '../../protocol/errors/serialize.js';
import type { TabErrors } from './brokerChannel.js';

/** The tab's error classes, as its lazy connection receives them from the main chunk (see `TabErrors`). */
export const tabErrors: TabErrors = { ClientError, ProtocolError, deserializeError };
