import { useCallback, useEffect, useState } from 'react';
import { useBrokerClient, usePendingChanges } from '../../../../client/react/index.js';
import type { PendingChange } from '../../../../client/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, PageHeader } from '../../components/Card.js';
import { RequireUser } from '../../components/RequireUser.js';
import { useAction } from '../../lib/useAction.js';
import { appRequestChoices } from '../../client.js';

/** This page's test ids (the end-to-end tests of app requests, test/e2e/appRequests.test.ts, copy them). */
export const N = {
  whoami: 'notes-whoami',
  whoamiResult: 'notes-whoami-result',
  tokenInPage: 'notes-token-in-page',
  burst: 'notes-burst',
  burstResult: 'notes-burst-result',
  noteText: 'notes-note-text',
  noteSave: 'notes-note-save',
  noteRow: 'notes-note-row',
  pendingRow: 'notes-pending-row',
  pendingDismiss: 'notes-pending-dismiss',
  offlineWrites: 'notes-offline-writes',
} as const;

interface Note {
  id: string;
  text: string;
  version: number;
}

/** Who the app's own API says the caller is, and which header carried the token (attached by client.fetch). */
function WhoAmI() {
  const client = useBrokerClient();
  const [result, setResult] = useState<string | null>(null);
  const [inPage, setInPage] = useState<string | null>(null);
  const ask = useAction(async () => {
    const answer = (await (await client.fetch('/api/whoami')).json()) as { userId?: string; header?: string };
    setResult(answer.userId === undefined ? 'refused' : `${answer.userId} (token in ${answer.header})`);
    // What a script in this page could get: with the service worker attaching tokens, nothing.
    setInPage(
      await client.getAccessToken().then(
        (token) => (token === null ? 'none (signed out)' : 'yes: this page can read it'),
        (error: { code?: string }) => `no (${error.code})`,
      ),
    );
  });
  return (
    <Card
      title="Your own API"
      description="client.fetch attaches the user's access token to requests to the app's own origin, and renews it once on a 401, for every tab."
    >
      <div className="row wrap">
        <Button busy={ask.busy} onClick={() => void ask.run()} testid={N.whoami}>
          Ask the API who I am
        </Button>
        {result !== null && <span data-testid={N.whoamiResult}>{result}</span>}
      </div>
      {inPage !== null && (
        <p className="muted small">
          Does this page hold an access token? <b data-testid={N.tokenInPage}>{inPage}</b>
        </p>
      )}
      <ErrorText error={ask.error} />
    </Card>
  );
}

/** Ten calls at once from this tab: one token request for all of them (and for every other tab doing the same). */
function Burst() {
  const client = useBrokerClient();
  const [result, setResult] = useState<string | null>(null);
  const burst = useAction(async () => {
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async () => (await client.fetch('/api/whoami')).status),
    );
    setResult(`${statuses.filter((status) => status === 200).length} of 10 answered 200`);
  });
  return (
    <Card title="From several tabs" description="Open this page in more tabs and press it in each.">
      <div className="row wrap">
        <Button busy={burst.busy} onClick={() => void burst.run()} testid={N.burst}>
          Call the API 10 times
        </Button>
        {result !== null && <span data-testid={N.burstResult}>{result}</span>}
      </div>
      <ErrorText error={burst.error} />
    </Card>
  );
}

function NoteEditor({ onSaved }: { onSaved: () => void }) {
  const client = useBrokerClient();
  const [text, setText] = useState('');
  const save = useAction(async () => {
    const id = 'today';
    // Kept while the service is away (offlineWrites), and applied once even if it arrives twice.
    const response = await client.fetch(
      `/api/notes/${id}`,
      { method: 'PUT', body: text, headers: { 'content-type': 'text/plain' } },
      { queue: { idempotencyKey: crypto.randomUUID(), label: `Save the note "${id}"` } },
    );
    if (!response.ok) throw new Error(`The API answered ${response.status}.`);
    onSaved();
  });
  return (
    <div className="row wrap">
      <input
        className="input"
        value={text}
        onChange={(event) => setText(event.target.value)}
        placeholder="Today's note"
        data-testid={N.noteText}
      />
      <Button busy={save.busy} onClick={() => void save.run()} testid={N.noteSave}>
        Save
      </Button>
      <ErrorText error={save.error} />
    </div>
  );
}

function PendingList({ changes }: { changes: PendingChange[] }) {
  const client = useBrokerClient();
  if (changes.length === 0) return <p className="muted small">Nothing waits for the service.</p>;
  return (
    <ul className="list">
      {changes.map((change) => (
        <li key={change.id} className="list-row" data-testid={N.pendingRow} data-state={change.state}>
          <div className="list-main">
            <div className="row wrap">
              <b>{change.label}</b>
              <Badge tone={change.state === 'waiting' || change.state === 'sending' ? 'accent' : 'bad'}>
                {change.state}
              </Badge>
            </div>
            <div className="muted small">
              Since {new Date(change.createdAtMillis).toLocaleTimeString()}
              {change.error !== null && ` · ${change.error.message}`}
            </div>
          </div>
          {(change.state === 'refused' || change.state === 'dropped') && (
            <div className="list-actions">
              <Button
                size="small"
                onClick={() => void client.dismissPendingChange(change.id)}
                testid={N.pendingDismiss}
              >
                Dismiss
              </Button>
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

function NotesList() {
  const client = useBrokerClient();
  const pending = usePendingChanges();
  const [notes, setNotes] = useState<Note[]>([]);
  const load = useAction(async () => {
    const response = await client.fetch('/api/notes');
    if (response.ok) setNotes(((await response.json()) as { notes: Note[] }).notes);
  });
  const reload = useCallback(() => void load.run(), [load]);
  const waiting = pending.filter((change) => change.state === 'waiting' || change.state === 'sending').length;
  // The list is read again whenever a write stopped waiting (in any tab).
  useEffect(reload, [waiting]); // eslint-disable-line react-hooks/exhaustive-deps
  const { offlineWrites } = appRequestChoices(new URLSearchParams(location.search));
  return (
    <Card
      title="Notes"
      description="Saved on the app's own API. With offline writes on, a save made while the service is away waits here, in every tab, and goes once it is back."
    >
      <p className="muted small" data-testid={N.offlineWrites} data-on={offlineWrites}>
        Offline writes are {offlineWrites ? 'on' : 'off'} in this browser:{' '}
        <a href={`/notes?offlineWrites=${offlineWrites ? '0' : '1'}`}>turn them {offlineWrites ? 'off' : 'on'}</a> (then
        reload the other tabs).
      </p>
      <NoteEditor onSaved={reload} />
      <ul className="list">
        {notes.map((note) => (
          <li key={note.id} className="list-row" data-testid={N.noteRow} data-id={note.id}>
            <b>{note.id}</b> {note.text} <span className="muted small">(version {note.version})</span>
          </li>
        ))}
      </ul>
      <h3>Waiting for the service</h3>
      <PendingList changes={pending} />
      <ErrorText error={load.error} />
    </Card>
  );
}

/** The app's own API: calls with the user's token attached, from every tab, and saves that wait out an outage. */
export function Notes() {
  return (
    <RequireUser what="your notes">
      {() => (
        <>
          <PageHeader
            title="Notes"
            lead="A small API of this app's own, beside the service, that checks the user's token with authbroker/server."
          />
          <WhoAmI />
          <Burst />
          <NotesList />
        </>
      )}
    </RequireUser>
  );
}
