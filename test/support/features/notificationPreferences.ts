/**
 * Notification preferences (which categories of e-mail a user gets), as scenarios over a target
 * (see ../scenarioKit.ts): the user's own list and changes, the server's, and the broker's query and action.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import { HttpStatusError } from '../../../protocol/errors/errors.js';
import type { NotificationPreferenceModel } from '../../../worker/index.js';
import {
  brokerFor,
  clientTransport,
  failureOf,
  knownCodeOf,
  PASSWORD,
  rawCall,
  serverApp,
  uniqueEmail,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

/** The service's two categories, the same in every project. */
export const TRANSACTIONAL = '7bb82d33-2f54-4a3d-9d23-82739e0d66ef';
export const MARKETING = '4f6f8873-3d04-46bd-8bef-18338b1a1b4c';

async function signedUpUser(target: ServiceTarget): Promise<{ userId: string; accessToken: string }> {
  const tokens = await endpoints.signUpWithPassword(clientTransport(target), {
    email: uniqueEmail('notifications'),
    password: PASSWORD,
    verification_callback_url: 'http://localhost:5173/handler/email-verification',
  });
  return { userId: tokens.user_id, accessToken: tokens.access_token };
}

const DEFAULTS = [
  {
    notification_category_id: TRANSACTIONAL,
    notification_category_name: 'Transactional',
    enabled: true,
    can_disable: false,
  },
  { notification_category_id: MARKETING, notification_category_name: 'Marketing', enabled: true, can_disable: true },
];

const statusOf = (error: unknown) =>
  error instanceof HttpStatusError ? error.status : `not an HTTP status error: ${String(error)}`;

/** A user starts with every category on, as the server sees it too. */
export async function everyNotificationCategoryStartsOn(target: ServiceTarget): Promise<void> {
  const user = await signedUpUser(target);
  expect(await endpoints.listNotificationPreferences(clientTransport(target, user.accessToken), 'me')).toEqual(
    DEFAULTS,
  );
  expect(await endpoints.listNotificationPreferences(clientTransport(target, user.accessToken), user.userId)).toEqual(
    DEFAULTS,
  );
  expect(await serverApp(target).listNotificationPreferences(user.userId)).toEqual(
    DEFAULTS.map((d) => ({
      notificationCategoryId: d.notification_category_id,
      notificationCategoryName: d.notification_category_name,
      enabled: d.enabled,
      canDisable: d.can_disable,
    })),
  );
}

/**
 * A change answers the category and sticks, the server may change it too, and a category that cannot be turned off
 * keeps the choice anyway.
 */
export async function notificationPreferenceChangesStick(target: ServiceTarget): Promise<void> {
  const user = await signedUpUser(target);
  const asUser = clientTransport(target, user.accessToken);
  expect(await endpoints.updateNotificationPreference(asUser, 'me', MARKETING, { enabled: false })).toEqual({
    ...DEFAULTS[1],
    enabled: false,
  });
  expect((await endpoints.listNotificationPreferences(asUser, 'me')).map((p) => p.enabled)).toEqual([true, false]);
  // The service keeps it, though `can_disable` says transactional mail goes out regardless.
  expect(await endpoints.updateNotificationPreference(asUser, 'me', TRANSACTIONAL, { enabled: false })).toEqual({
    ...DEFAULTS[0],
    enabled: false,
  });
  expect(await serverApp(target).updateNotificationPreference(user.userId, MARKETING, { enabled: true })).toEqual({
    notificationCategoryId: MARKETING,
    notificationCategoryName: 'Marketing',
    enabled: true,
    canDisable: true,
  });
  expect((await endpoints.listNotificationPreferences(asUser, 'me')).map((p) => p.enabled)).toEqual([false, true]);
}

/** Refusals: another user’s preferences, an unknown category or user, a body that is not { enabled: boolean }. */
export async function notificationPreferenceRefusals(target: ServiceTarget): Promise<void> {
  const user = await signedUpUser(target);
  const asUser = clientTransport(target, user.accessToken);
  expect(statusOf(await failureOf(endpoints.listNotificationPreferences(asUser, crypto.randomUUID())))).toBe(403);
  expect(
    statusOf(
      await failureOf(
        endpoints.updateNotificationPreference(asUser, crypto.randomUUID(), MARKETING, { enabled: false }),
      ),
    ),
  ).toBe(403);
  expect(
    statusOf(
      await failureOf(endpoints.updateNotificationPreference(asUser, 'me', crypto.randomUUID(), { enabled: false })),
    ),
  ).toBe(404);
  expect(knownCodeOf(await failureOf(serverApp(target).listNotificationPreferences(crypto.randomUUID())))).toBe(
    'USER_NOT_FOUND',
  );
  // The category is looked up first.
  expect(
    statusOf(
      await failureOf(
        serverApp(target).updateNotificationPreference(crypto.randomUUID(), crypto.randomUUID(), { enabled: true }),
      ),
    ),
  ).toBe(404);
  expect(
    knownCodeOf(
      await failureOf(
        serverApp(target).updateNotificationPreference(crypto.randomUUID(), MARKETING, { enabled: true }),
      ),
    ),
  ).toBe('USER_NOT_FOUND');

  const path = `/emails/notification-preference/me/${MARKETING}`;
  const auth = { accessToken: user.accessToken };
  for (const body of [undefined, {}, { enabled: 'no' }, { enabled: true, extra: 1 }]) {
    const answer = await rawCall(target, 'PATCH', path, { ...auth, ...(body === undefined ? {} : { body }) });
    expect([answer.status, answer.code], JSON.stringify(body)).toEqual([400, 'SCHEMA_ERROR']);
  }
  const nobody = await rawCall(target, 'GET', '/emails/notification-preference/me');
  expect([nobody.status, nobody.code]).toEqual([400, 'CANNOT_GET_OWN_USER_WITHOUT_USER']);
}

/** Through the broker: every tab’s notificationPreferences list follows updateNotificationPreference. */
export async function brokerNotificationPreferencesFollowUpdates(target: ServiceTarget): Promise<void> {
  const email = uniqueEmail('broker-notifications');
  await serverApp(target).createUser({ primaryEmail: email, password: PASSWORD, primaryEmailAuthEnabled: true });
  const { tabs, close } = await brokerFor(target, 2);
  try {
    const [first, second] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    await first.api.signInWithPassword({ email, password: PASSWORD });
    const enabledIn = (s: { data: unknown }) =>
      ((s.data as NotificationPreferenceModel[] | undefined) ?? []).map((p) => p.enabled);
    for (const tab of tabs) {
      await tab.subscribe('preferences', { kind: 'notificationPreferences' });
      await tab.waitFor('preferences', (s) => enabledIn(s).length === 2, 30_000);
    }
    const answer = await first.api.updateNotificationPreference(MARKETING, { enabled: false });
    expect(answer).toEqual({
      notificationCategoryId: MARKETING,
      notificationCategoryName: 'Marketing',
      enabled: false,
      canDisable: true,
    });
    await second.waitFor('preferences', (s) => enabledIn(s).join() === 'true,false', 30_000);
    // Checked in the broker before anything is sent.
    expect(await failureOf(first.api.updateNotificationPreference('not-a-uuid', { enabled: true }))).toMatchObject({
      name: 'InvalidArgumentError',
      code: 'INVALID_ARGUMENT',
    });
  } finally {
    close();
  }
}
