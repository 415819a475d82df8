import type { EmailTemplateType } from '../protocol/resources/admin.js';
import type { Json } from '../protocol/resources/common.js';

/**
 * An e-mail template's `content` as the service keeps it: a document of the e-mail builder its
 * dashboard edits, blocks by id, read from the `root` block (an `EmailLayout`) through the
 * children ids. `PATCH /email-templates/{type}` refuses anything that is not such a document
 * (plain 400 `Invalid email template content`).
 */
export type TemplateDocument = Record<string, { type: string; data: Record<string, Json> }>;

type Check = (value: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const oneOf =
  (...values: string[]): Check =>
  (value) =>
    typeof value === 'string' && values.includes(value);
const string: Check = (value) => typeof value === 'string';
const number: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const size: Check = (value) => number(value) && (value as number) >= 0;
const boolean: Check = (value) => typeof value === 'boolean';
const color: Check = (value) => typeof value === 'string' && /^#[0-9a-fA-F]{6}$/.test(value);
const padding: Check = (value) =>
  isObject(value) && ['top', 'bottom', 'right', 'left'].every((side) => number(value[side]));
const childIds: Check = (value) => Array.isArray(value) && value.every(string);
const fontFamily = oneOf(
  'MODERN_SANS',
  'BOOK_SANS',
  'ORGANIC_SANS',
  'GEOMETRIC_SANS',
  'HEAVY_SANS',
  'ROUNDED_SANS',
  'MODERN_SERIF',
  'BOOK_SERIF',
  'MONOSPACE',
);
const fontWeight = oneOf('bold', 'normal');
const textAlign = oneOf('left', 'center', 'right');
const columns: Check = (value) =>
  Array.isArray(value) &&
  value.every((column) => isObject(column) && (column.childrenIds == null || childIds(column.childrenIds)));

type Fields = Record<string, Check>;

/** Fields the builder knows, per block type; like the builder, fields it does not know are ignored. */
const BLOCKS: Record<string, { style?: Fields; props?: Fields; data?: Fields }> = {
  EmailLayout: {
    data: { backdropColor: color, canvasColor: color, textColor: color, fontFamily, childrenIds: childIds },
  },
  Container: {
    style: { backgroundColor: color, borderColor: color, borderRadius: size, padding },
    props: { childrenIds: childIds },
  },
  ColumnsContainer: {
    style: { backgroundColor: color, padding },
    props: { columnsCount: number, columnsGap: size, columns },
  },
  Heading: {
    style: { color, backgroundColor: color, fontFamily, fontWeight, textAlign, padding },
    props: { text: string, level: oneOf('h1', 'h2', 'h3') },
  },
  Text: {
    style: { color, backgroundColor: color, fontSize: size, fontFamily, fontWeight, textAlign, padding },
    props: { text: string },
  },
  Button: {
    style: { backgroundColor: color, fontSize: size, fontFamily, fontWeight, textAlign, padding },
    props: {
      buttonBackgroundColor: color,
      buttonStyle: oneOf('rectangle', 'pill', 'rounded'),
      buttonTextColor: color,
      fullWidth: boolean,
      size: oneOf('x-small', 'small', 'large', 'medium'),
      text: string,
      url: string,
    },
  },
  Image: {
    style: { backgroundColor: color, textAlign, padding },
    props: { url: string, alt: string, linkHref: string, width: size, height: size },
  },
  Spacer: { props: { height: size } },
  Divider: { style: { backgroundColor: color, padding }, props: { lineColor: color, lineHeight: size } },
};

/** Absent and null fields are allowed everywhere, as in the builder's schemas. */
function fieldsHold(value: unknown, fields: Fields | undefined): boolean {
  if (value == null || fields === undefined) return true;
  if (!isObject(value)) return false;
  return Object.entries(fields).every(
    ([name, check]) => !Object.hasOwn(value, name) || value[name] == null || check(value[name]),
  );
}

/** Whether `content` is a template document every block of which the builder would accept. */
export function isTemplateDocument(content: unknown): content is TemplateDocument {
  if (!isObject(content)) return false;
  return Object.values(content).every((block) => {
    if (
      !isObject(block) ||
      typeof block.type !== 'string' ||
      !Object.hasOwn(BLOCKS, block.type) ||
      !isObject(block.data)
    )
      return false;
    const rules = BLOCKS[block.type]!;
    return (
      fieldsHold(block.data, rules.data) &&
      fieldsHold(block.data.style, rules.style) &&
      fieldsHold(block.data.props, rules.props)
    );
  });
}

function childrenOf(block: TemplateDocument[string]): string[] {
  const data = block.data as Record<string, unknown>;
  const props = isObject(data.props) ? data.props : {};
  if (block.type === 'EmailLayout') return childIds(data.childrenIds) ? (data.childrenIds as string[]) : [];
  if (block.type === 'Container') return childIds(props.childrenIds) ? (props.childrenIds as string[]) : [];
  if (block.type === 'ColumnsContainer' && columns(props.columns))
    return (props.columns as Array<{ childrenIds?: string[] | null }>).flatMap((column) => column.childrenIds ?? []);
  return [];
}

/** One block's own words: heading and paragraph text, a button as `label: url`. */
function blockText(block: TemplateDocument[string]): string | null {
  const props = isObject(block.data.props) ? block.data.props : {};
  const text = typeof props.text === 'string' ? props.text : '';
  if (block.type === 'Heading' || block.type === 'Text') return text === '' ? null : text.trim();
  if (block.type === 'Button') {
    const url = typeof props.url === 'string' ? props.url : '';
    return [text, url].filter((part) => part !== '').join(': ') || null;
  }
  return null;
}

/**
 * The plain text of a document in reading order, paragraphs apart (the mailbox's text body). A
 * document without a `root` is read in key order; each block is read once, so a cycle of children
 * ids ends.
 */
export function documentText(document: TemplateDocument): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const visit = (id: string): void => {
    const block = Object.hasOwn(document, id) ? document[id] : undefined;
    if (block === undefined || seen.has(id)) return;
    seen.add(id);
    const text = blockText(block);
    if (text !== null) parts.push(text);
    for (const child of childrenOf(block)) visit(child);
  };
  if (Object.hasOwn(document, 'root')) visit('root');
  else for (const id of Object.keys(document)) visit(id);
  return parts.join('\n\n');
}

const PADDED = { padding: { top: 8, bottom: 8, right: 24, left: 24 } };

/**
 * A default document: a heading, a paragraph, optionally a code on a line of its own (where the service's e-mail shows
 * the one-time code, which tests read from it), a button to the flow's link, a closing line.
 */
function defaultDocument(
  heading: string,
  paragraph: string,
  button: { label: string; url: string },
  closing: string,
  code?: string,
): TemplateDocument {
  const codeBlock: TemplateDocument =
    code === undefined
      ? {}
      : {
          code: {
            type: 'Text',
            data: { style: { fontSize: 24, fontWeight: 'bold', ...PADDED }, props: { text: code } },
          },
        };
  return {
    root: {
      type: 'EmailLayout',
      data: {
        backdropColor: '#F4F5F7',
        canvasColor: '#FFFFFF',
        textColor: '#1F2328',
        fontFamily: 'MODERN_SANS',
        childrenIds: ['heading', 'paragraph', ...(code === undefined ? [] : ['code']), 'button', 'closing'],
      },
    },
    heading: {
      type: 'Heading',
      data: { style: { fontWeight: 'bold', ...PADDED }, props: { text: heading, level: 'h2' } },
    },
    paragraph: { type: 'Text', data: { style: { fontSize: 15, ...PADDED }, props: { text: paragraph } } },
    ...codeBlock,
    button: {
      type: 'Button',
      data: { style: PADDED, props: { text: button.label, url: button.url, buttonStyle: 'rounded', size: 'medium' } },
    },
    closing: { type: 'Text', data: { style: { fontSize: 12, color: '#6E7781', ...PADDED }, props: { text: closing } } },
  };
}

const IGNORE = 'If this was not you, you can ignore this e-mail.';

/** The emulator's default templates, in the service's document format, with the variables of PROTOCOL.md §12.3. */
export const defaultTemplateDocuments: Readonly<Record<EmailTemplateType, TemplateDocument>> = {
  email_verification: defaultDocument(
    'Confirm your e-mail for {{ projectDisplayName }}',
    'Hello{{#if userDisplayName}} {{ userDisplayName }}{{/if}}, please confirm that this e-mail address is yours.',
    { label: 'Confirm my e-mail', url: '{{ emailVerificationLink }}' },
    IGNORE,
  ),
  password_reset: defaultDocument(
    'Reset your password for {{ projectDisplayName }}',
    'Hello{{#if userDisplayName}} {{ userDisplayName }}{{/if}}, someone asked to reset the password of this account.',
    { label: 'Choose a new password', url: '{{ passwordResetLink }}' },
    IGNORE,
  ),
  magic_link: defaultDocument(
    'Sign in to {{ projectDisplayName }}',
    'Your sign-in code for {{ projectDisplayName }} is {{ otp }}. You can also sign in with the button below.',
    { label: 'Sign in', url: '{{ magicLink }}' },
    IGNORE,
    '{{ otp }}',
  ),
  team_invitation: defaultDocument(
    'Join {{ teamDisplayName }}',
    'You have been invited to join {{ teamDisplayName }} on {{ projectDisplayName }}.',
    { label: 'Accept the invitation', url: '{{ teamInvitationLink }}' },
    'If you do not know this team, you can ignore this e-mail.',
  ),
};
