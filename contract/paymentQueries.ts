/**
 * How the payments queries of queries.ts fetch: a customer's item, products, billing and invoices, as the
 * app's models (protocol/paymentModels.ts). The broker loads it with its service methods on the first payments
 * query (`FetchContext.lazyFetches`), so that a broker whose tabs show no payments never loads it.
 * It takes the transport, not the registry's fetch context, so that it never imports queries.ts back.
 */
import * as payments from '../protocol/endpoints/payments.js';
import {
  billingModel,
  customerProductModel,
  invoiceModel,
  itemModel,
  pageModel,
  type BillingModel,
  type CustomerPageModel,
  type CustomerProductModel,
  type InvoiceModel,
  type ItemModel,
} from '../protocol/paymentModels.js';
import type { CustomerType } from '../protocol/resources/payments.js';
import type { Transport } from '../protocol/transport.js';

/** A customer as the queries name it (flat, so that it is part of the query's key). */
export interface CustomerParams {
  customerType: CustomerType;
  customerId: string;
}

export interface PageParams extends CustomerParams {
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** Billing and invoices are the service's for users and teams only. */
type UserOrTeam = 'user' | 'team';

const page = ({ cursor, limit }: PageParams) => ({
  ...(cursor === undefined ? {} : { cursor }),
  ...(limit === undefined ? {} : { limit }),
});

const EMPTY_PAGE = { items: [], nextCursor: null };

/** The signed-in user's view of a customer: signed out, there is none to show (null, or an empty page). */
export async function fetchItem(
  client: Transport<'client'>,
  signedIn: boolean,
  { customerType, customerId, itemId }: CustomerParams & { itemId: string },
): Promise<ItemModel | null> {
  return signedIn ? itemModel(await payments.getItem(client, customerType, customerId, itemId)) : null;
}

export async function fetchProducts(
  client: Transport<'client'>,
  signedIn: boolean,
  params: PageParams,
): Promise<CustomerPageModel<CustomerProductModel>> {
  if (!signedIn) return EMPTY_PAGE;
  const list = await payments.listCustomerProducts(client, params.customerType, params.customerId, page(params));
  return pageModel(list, customerProductModel);
}

export async function fetchBilling(
  client: Transport<'client'>,
  signedIn: boolean,
  { customerType, customerId }: CustomerParams,
): Promise<BillingModel | null> {
  return signedIn
    ? billingModel(await payments.getCustomerBilling(client, customerType as UserOrTeam, customerId))
    : null;
}

export async function fetchInvoices(
  client: Transport<'client'>,
  signedIn: boolean,
  params: PageParams,
): Promise<CustomerPageModel<InvoiceModel>> {
  if (!signedIn) return EMPTY_PAGE;
  const list = await payments.listCustomerInvoices(
    client,
    params.customerType as UserOrTeam,
    params.customerId,
    page(params),
  );
  return pageModel(list, invoiceModel);
}
