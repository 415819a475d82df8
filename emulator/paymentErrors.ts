import type { CustomerType } from '../protocol/resources/payments.js';
import { ServiceKnownError } from './errors.js';

/** The service's known errors of payments (codes authbroker's catalogue does not hold), worded as the service words them. */
export const paymentErrors = {
  itemNotFound: (itemId: string) =>
    new ServiceKnownError('ITEM_NOT_FOUND', 404, `Item with ID "${itemId}" not found.`, { item_id: itemId }),
  itemCustomerTypeDoesNotMatch: (itemId: string, customerId: string, itemType: CustomerType, actual: CustomerType) =>
    new ServiceKnownError(
      'ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH',
      400,
      `The ${actual} with ID ${JSON.stringify(customerId)} is not a valid customer for the item with ID ${JSON.stringify(itemId)}. The item is configured to only be available for ${itemType} customers, but the customer is a ${actual}.`,
      { item_id: itemId, customer_id: customerId, item_customer_type: itemType, actual_customer_type: actual },
    ),
  itemQuantityInsufficientAmount: (itemId: string, customerId: string, quantity: number) =>
    new ServiceKnownError(
      'ITEM_QUANTITY_INSUFFICIENT_AMOUNT',
      400,
      `The item with ID ${JSON.stringify(itemId)} has an insufficient quantity for the customer with ID ${JSON.stringify(customerId)}. An attempt was made to charge ${quantity} credits.`,
      { item_id: itemId, customer_id: customerId, quantity },
    ),
  productDoesNotExist: (productId: string, context: 'item_exists' | 'server_only' | null) =>
    new ServiceKnownError(
      'PRODUCT_DOES_NOT_EXIST',
      400,
      `Product with ID ${JSON.stringify(productId)} ${
        context === 'server_only'
          ? 'is marked as server-only and cannot be accessed client side.'
          : context === 'item_exists'
            ? 'does not exist, but an item with this ID exists.'
            : 'does not exist.'
      }`,
      { product_id: productId, context },
    ),
  productCustomerTypeDoesNotMatch: (
    productId: string | null,
    customerId: string,
    productType: CustomerType,
    actual: CustomerType,
  ) =>
    new ServiceKnownError(
      'PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH',
      400,
      `The ${actual} with ID ${JSON.stringify(customerId)} is not a valid customer for the inline product that has been passed in. The product is configured to only be available for ${productType} customers, but the customer is a ${actual}.`,
      {
        product_id: productId,
        customer_id: customerId,
        product_customer_type: productType,
        actual_customer_type: actual,
      },
    ),
  productAlreadyGranted: (productId: string, customerId: string) =>
    new ServiceKnownError(
      'PRODUCT_ALREADY_GRANTED',
      400,
      `Customer with ID ${JSON.stringify(customerId)} already owns product ${JSON.stringify(productId)}.`,
      { product_id: productId, customer_id: customerId },
    ),
  newPurchasesBlocked: () =>
    new ServiceKnownError(
      'NEW_PURCHASES_BLOCKED',
      403,
      'New purchases are currently blocked for this project. Please contact support for more information.',
    ),
  defaultPaymentMethodRequired: (customerType: 'user' | 'team', customerId: string) =>
    new ServiceKnownError(
      'DEFAULT_PAYMENT_METHOD_REQUIRED',
      400,
      'No default payment method is set for this customer.',
      {
        customer_type: customerType,
        customer_id: customerId,
      },
    ),
};
