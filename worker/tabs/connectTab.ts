/**
 * A tab joining a broker: its hello checked (what it may say, and how much), its registration, and the API it gets.
 * Everything a tab sends is checked here or by the API's guard (rpc/guard.ts): a page may be hostile.
 */
import type { BrokerApi, TabHello, TabListener } from '../../contract/api.js';
import {
  array,
  check,
  fields,
  isAbsoluteUrl,
  maxLength,
  minLength,
  optional,
  parseValue,
  pipe,
  string,
} from '../../contract/schema.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { checkedApi } from '../rpc/guard.js';
import { createTabApi, type TabApiContext } from './tabApi.js';
import type { Tabs } from './tabs.js';

const tabUrl = pipe(string(), maxLength(2000), check(isAbsoluteUrl, 'must be an absolute URL'));
const helloRules = fields({
  warnings: optional(
    pipe(
      array(pipe(string(), maxLength(2000)), 'must be a list of sentences'),
      maxLength(10, 'must hold at most 10 warnings'),
    ),
  ),
  handlerUrls: optional(
    fields({ emailVerification: tabUrl, passwordReset: tabUrl, magicLinkCallback: tabUrl, teamInvitation: tabUrl }),
  ),
  tabId: optional(pipe(string(), minLength(1, 'must not be empty'), maxLength(200))),
  lockName: optional(pipe(string(), minLength(1, 'must not be empty'), maxLength(300))),
  version: optional(pipe(string(), maxLength(100)), ''),
});

export interface TabConnectorParts extends Omit<TabApiContext, 'connectivity'> {
  tabs: Tabs;
  connectivity: TabApiContext['connectivity'] & { forgetTab(tab: number): void };
  warnings: { addFromTab(tab: number, warnings: readonly string[]): void };
}

/** A tab's view of the broker; `listener` receives its subscription updates, `onRelease` runs when the tab leaves. */
export type ConnectTab = (hello: TabHello, listener: TabListener, onRelease?: () => void) => BrokerApi;

export function tabConnector(parts: TabConnectorParts): ConnectTab {
  return (helloInput, listener, onRelease) => {
    const hello = parseValue('connect', 'hello', helloRules, helloInput);
    if (typeof listener?.deliver !== 'function')
      throw new InvalidArgumentError('listener', 'listener needs a deliver(batch) method.');
    const tab = parts.tabs.register(hello, listener, () => {
      // A tab's word on the network leaves with it.
      parts.connectivity.forgetTab(tab.label);
      onRelease?.();
    });
    parts.warnings.addFromTab(tab.label, hello.warnings ?? []);
    parts.connectivity.verifyContact();
    return checkedApi(createTabApi(tab, parts, hello.handlerUrls));
  };
}
