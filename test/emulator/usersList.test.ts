import { beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import type { ServerUser } from '../../protocol/resources/user.js';
import { devRequest, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const TAG = `Lst${Date.now().toString(36)}`;
let teamId = '';
let created: ServerUser[] = [];

beforeAll(async () => {
  const em = emulator();
  const server = transportFor(em, 'server');
  teamId = (await endpoints.createTeam(server, { display_name: 'Listing' })).id;
  created = [];
  for (let i = 0; i < 15; i++) {
    // A second apart, so sign-up order is unambiguous.
    await devRequest(em, 'POST', '/emulator/time', { advance_millis: 1000 });
    const user = await endpoints.createUser(server, {
      display_name: `${TAG} member ${String(i).padStart(2, '0')}`,
      primary_email: uniqueEmail('list'),
    });
    await endpoints.addTeamMember(server, teamId, user.id);
    created.push(user);
  }
  // Someone outside the team, so the team filter has something to leave out.
  await endpoints.createUser(server, { display_name: `${TAG} outsider` });
});

const ids = (users: ServerUser[]) => users.map((u) => u.id);

describe('GET /users', () => {
  it('filters by team and orders by sign-up time, ascending or descending', async () => {
    const server = transportFor(emulator(), 'server');
    const all = await endpoints.listUsers(server, { team_id: teamId });
    expect(all.is_paginated).toBe(true);
    expect(all.pagination.next_cursor).toBeNull();
    expect(ids(all.items)).toEqual(ids(created));
    const desc = await endpoints.listUsers(server, { team_id: teamId, desc: true });
    expect(ids(desc.items)).toEqual(ids(created).reverse());
    expect(desc.items[0]).toHaveProperty('server_metadata');
  });

  it('pages with an inclusive cursor: next_cursor is the first user of the next page', async () => {
    const server = transportFor(emulator(), 'server');
    for (const desc of [false, true]) {
      const expected = desc ? ids(created).reverse() : ids(created);
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await endpoints.listUsers(server, {
          team_id: teamId,
          limit: 4,
          desc,
          ...(cursor === undefined ? {} : { cursor }),
        });
        pages.push(ids(page.items));
        const next = page.pagination.next_cursor;
        if (next !== null) expect(next).toBe(expected[pages.flat().length]);
        cursor = next ?? undefined;
      } while (cursor !== undefined);
      expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 3]);
      expect(pages.flat()).toEqual(expected);
    }
  });

  it('starts at the cursor user and stops at the limit', async () => {
    const server = transportFor(emulator(), 'server');
    const page = await endpoints.listUsers(server, { team_id: teamId, cursor: created[5]!.id, limit: 3 });
    expect(ids(page.items)).toEqual(ids(created.slice(5, 8)));
    expect(page.pagination.next_cursor).toBe(created[8]!.id);
    const exact = await endpoints.listUsers(server, { team_id: teamId, cursor: created[12]!.id, limit: 3 });
    expect(ids(exact.items)).toEqual(ids(created.slice(12)));
    expect(exact.pagination.next_cursor).toBeNull();
    const unknown = await endpoints.listUsers(server, { team_id: teamId, cursor: crypto.randomUUID() });
    expect(unknown.items).toEqual([]);
  });

  it('walks every page with iterateUsers', async () => {
    const server = transportFor(emulator(), 'server');
    const seen: string[] = [];
    for await (const user of endpoints.iterateUsers(server, { team_id: teamId, limit: 2 })) seen.push(user.id);
    expect(seen).toEqual(ids(created));
  });

  it('searches display names and every contact channel case-insensitively', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const byName = await endpoints.listUsers(server, { query: `${TAG.toUpperCase()} MEMBER 1` });
    expect(ids(byName.items)).toEqual(ids(created.slice(10, 15)));
    const target = created[3]!;
    const secondary = `${TAG.toLowerCase()}-second@Example.com`;
    await endpoints.createContactChannel(server, {
      user_id: target.id,
      type: 'email',
      value: secondary,
      used_for_auth: false,
    });
    expect(ids((await endpoints.listUsers(server, { query: `${TAG}-SECOND@example` })).items)).toEqual([target.id]);
    expect(ids((await endpoints.listUsers(server, { query: target.primary_email!.toUpperCase() })).items)).toEqual([
      target.id,
    ]);
  });

  it('matches an id only exactly, after dropping characters an id cannot contain', async () => {
    const server = transportFor(emulator(), 'server');
    const target = created[7]!;
    expect(ids((await endpoints.listUsers(server, { query: ` "${target.id}"! ` })).items)).toEqual([target.id]);
    expect((await endpoints.listUsers(server, { query: target.id.slice(0, 8) })).items).toEqual([]);
  });

  it('validates the query and refuses clients', async () => {
    const em = emulator();
    const base = `${em.url}/api/v1/users`;
    const headers = {
      'x-stack-project-id': em.projects.demo.id,
      'x-stack-access-type': 'server',
      'x-stack-secret-server-key': em.projects.demo.secretServerKey,
    };
    for (const query of ['limit=0', 'order_by=created_at', 'desc=maybe', 'cursor=abc', 'extra=1']) {
      const response = await fetch(`${base}?${query}`, { headers });
      expect(response.status).toBe(400);
      expect(response.headers.get('x-stack-known-error')).toBe('SCHEMA_ERROR');
    }
    const ok = (await (await fetch(`${base}?limit=1&desc=true`, { headers })).json()) as {
      items: unknown[];
      pagination: { next_cursor: string | null };
    };
    expect(ok.items).toHaveLength(1);
    expect(ok.pagination.next_cursor).toEqual(expect.any(String));
    await expect(endpoints.listUsers(transportFor(em, 'client') as never)).rejects.toMatchObject({
      code: 'INSUFFICIENT_ACCESS_TYPE',
      status: 401,
    });
  });
});
