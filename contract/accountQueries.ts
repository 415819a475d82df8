/**
 * How the queries of the user's own API keys, its teams' keys, its OAuth providers and the invitations it received
 * fetch (queries.ts). A module of its own, loaded with import() on the first of them, so that their endpoint modules
 * (shared with the service methods that change them) stay out of the SharedWorker's up-front bundle. It takes the
 * transport, not the registry's fetch context, so that it never imports queries.ts back.
 */
import { listReceivedTeamInvitations } from '../protocol/endpoints/invitations.js';
import { listOAuthProviders } from '../protocol/endpoints/oauthProviders.js';
import { listTeamApiKeys, listUserApiKeys } from '../protocol/endpoints/ownedApiKeys.js';
import { camelize } from '../protocol/models.js';
import type { Transport } from '../protocol/transport.js';

export const fetchUserApiKeys = async (t: Transport<'client'>) => camelize(await listUserApiKeys(t, 'me'));
export const fetchTeamApiKeys = async (t: Transport<'client'>, teamId: string) =>
  camelize(await listTeamApiKeys(t, teamId));
export const fetchOAuthProviders = async (t: Transport<'client'>) => camelize(await listOAuthProviders(t, 'me'));
export const fetchReceivedTeamInvitations = async (t: Transport<'client'>) =>
  camelize(await listReceivedTeamInvitations(t, 'me'));
